import { storableText } from '@policyhub/db';
import { invalidAttribute, notFound } from '@policyhub/errors';
import { PlanRepository } from '../db/plan-repository.js';
import { lockRunAndOpenChecks } from '../db/run-locks.js';
import { RunRepository, type RunView } from '../db/run-repository.js';
import { summarizeParsedPlan } from '../domain/plan-document.js';
import { PLAN_STATUS } from '../domain/plan-status.js';
import { planObjectKey } from '../domain/ports.js';
import { RUN_STATUS, canFinishPlan, isFinalRunStatus } from '../domain/run-status.js';
import type { Deps } from '../deps.js';
import { claimPlan, finishPlan, releasePlan, runStateConflict as stateConflict } from './plan-finishing.js';
import { cancelOpenChecks, moveRun, recordRunEvent } from './transitions.js';

/** How long a report waits for another writer of the same plan (an HTTP upload, a retry). */
const CLAIM_WAIT_MS = 30_000;

/** What an executor reports about a run (internal API, no principal). */
export class ExecutorUseCases {
  private readonly runs: RunRepository;

  constructor(private readonly deps: Deps) {
    this.runs = new RunRepository(deps.db);
  }

  /**
   * Stores the plan JSON, then finishes the plan like every other way a plan arrives
   * (plan-finishing.ts). A repeated report returns the run unchanged, so an executor may retry
   * safely; a report while the same plan is being written (a retry, an HTTP upload) waits for
   * that writer and then returns the run as it left it.
   */
  async planFinished(runId: string, planJson: Buffer): Promise<RunView> {
    const run = await this.runs.get(runId);
    if (!run) throw notFound('RUNS_RUN_NOT_FOUND');
    if (run.plan_object_key) return (await this.runs.getView(runId))!;
    if (!canFinishPlan(run.status)) throw stateConflict(run.status, 'only a pending run can finish its plan');
    const summary = summarizeParsedPlan(parseJsonObject(planJson));
    const plan = await new PlanRepository(this.deps.db).getByRun(runId);
    if (!plan) throw notFound('RUNS_PLAN_NOT_FOUND');
    const attempt = await this.waitForPlan(plan.id);
    if (!attempt) return (await this.runs.getView(runId))!;
    try {
      const key = planObjectKey(run.organization, run.id);
      await this.deps.objects.put(key, planJson, 'application/json', run.organization_id ?? '');
      await finishPlan(this.deps, run, { key, summary, sizeBytes: planJson.length, attempt });
    } finally {
      await releasePlan(this.deps, plan.id, attempt);
    }
    return (await this.runs.getView(runId))!;
  }

  /** Holds the plan for this report; undefined when another writer finished it meanwhile. */
  private async waitForPlan(planId: string): Promise<string | undefined> {
    const deadline = Date.now() + CLAIM_WAIT_MS;
    while (true) {
      try {
        return await claimPlan(this.deps, planId);
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === 'RUNS_PLAN_ALREADY_UPLOADED') return undefined;
        if (code !== 'RUNS_PLAN_UPLOAD_IN_PROGRESS' || Date.now() > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  /** The run failed: → errored, and a check still waiting for an evaluator is canceled. */
  errored(runId: string, message: string): Promise<RunView> {
    return this.finish(runId, RUN_STATUS.errored, message);
  }

  /** The run was canceled: → canceled, and a check still waiting for an evaluator too. */
  canceled(runId: string): Promise<RunView> {
    return this.finish(runId, RUN_STATUS.canceled, '');
  }

  private async finish(
    runId: string,
    status: typeof RUN_STATUS.errored | typeof RUN_STATUS.canceled,
    description: string,
  ) {
    await this.deps.db.transaction(async (tx) => {
      const locked = await lockRunAndOpenChecks(tx, runId);
      if (!locked) throw notFound('RUNS_RUN_NOT_FOUND');
      const { run } = locked;
      if (run.status === status) return; // repeated report
      if (isFinalRunStatus(run.status)) throw stateConflict(run.status, `it cannot become ${status}`);
      await cancelOpenChecks(tx, runId); // the checks are locked already; their stage here
      await moveRun(tx, run, status);
      await new PlanRepository(tx).endPending(
        runId,
        status === RUN_STATUS.canceled ? PLAN_STATUS.canceled : PLAN_STATUS.errored,
        new Date().toISOString(),
      );
      // The executor's words may quote tenant data: kept, made storable.
      await recordRunEvent(tx, {
        runId,
        action: status,
        description: storableText(description.slice(0, 10_000)),
      });
    });
    return (await this.runs.getView(runId))!;
  }
}

function parseJsonObject(bytes: Buffer): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalidAttribute('RUNS_INVALID_PLAN_JSON', '/plan_json', 'plan_json must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}
