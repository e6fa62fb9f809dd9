import { conflict, invalidAttribute, newId, notFound } from '@policyhub/errors';
import { PolicyCheckRepository } from '../db/policy-check-repository.js';
import { RunRepository, type RunView } from '../db/run-repository.js';
import { CHECK_STATUS } from '../domain/policy-check-status.js';
import { planObjectKey } from '../domain/ports.js';
import { RUN_STATUS, canFinishPlan, isFinalRunStatus, withStatusTimestamp } from '../domain/run-status.js';
import type { WorkflowContext } from './context.js';
import { cancelOpenChecks, moveRun, recordRunEvent } from './transitions.js';

const stateConflict = (status: string, action: string) =>
  conflict('RUNS_RUN_STATE_CONFLICT', `the run is ${status}; ${action}`);

/** What an executor reports about a run (internal API, no principal). */
export class ExecutorWorkflows {
  private readonly runs: RunRepository;

  constructor(private readonly ctx: WorkflowContext) {
    this.runs = new RunRepository(ctx.db);
  }

  /**
   * Stores the plan JSON, then creates ONE queued policy check when kind_a sets apply (run →
   * policy_checking) or moves the run to planned. A repeated report returns the run unchanged,
   * so an executor may retry safely.
   */
  async planFinished(runId: string, planJson: Buffer): Promise<RunView> {
    const run = await this.runs.get(runId);
    if (!run) throw notFound('RUNS_RUN_NOT_FOUND');
    if (run.plan_object_key) return (await this.runs.getView(runId))!;
    if (!canFinishPlan(run.status)) throw stateConflict(run.status, 'only a pending run can finish its plan');
    assertJsonObject(planJson);
    const workspace = await this.ctx.workspaces.getWorkspace(run.workspace_id);
    if (!workspace) throw notFound('RUNS_WORKSPACE_NOT_FOUND');
    const sets = await this.ctx.policySets.applicableSets(workspace);
    const key = planObjectKey(run.organization, run.id);
    await this.ctx.objects.put(key, planJson, 'application/json');

    await this.ctx.db.transaction(async (tx) => {
      const locked = await new RunRepository(tx).getForUpdate(runId);
      if (!locked) throw notFound('RUNS_RUN_NOT_FOUND');
      if (locked.plan_object_key) return; // a concurrent report of the same plan won
      if (!canFinishPlan(locked.status))
        throw stateConflict(locked.status, 'only a pending run can finish its plan');
      if (sets.length === 0) {
        await moveRun(tx, locked, RUN_STATUS.planned, key);
        return;
      }
      const now = new Date();
      await new PolicyCheckRepository(tx).insert({
        id: newId('polchk'),
        runId,
        status: CHECK_STATUS.queued,
        statusTimestamps: withStatusTimestamp({}, CHECK_STATUS.queued, now),
        policySets: sets,
        createdAt: now.toISOString(),
      });
      await moveRun(tx, locked, RUN_STATUS.policyChecking, key);
    });
    return (await this.runs.getView(runId))!;
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
    await this.ctx.db.transaction(async (tx) => {
      const run = await new RunRepository(tx).getForUpdate(runId);
      if (!run) throw notFound('RUNS_RUN_NOT_FOUND');
      if (run.status === status) return; // repeated report
      if (isFinalRunStatus(run.status)) throw stateConflict(run.status, `it cannot become ${status}`);
      await cancelOpenChecks(tx, runId);
      await moveRun(tx, run, status);
      await recordRunEvent(tx, { runId, action: status, description: description.slice(0, 10_000) });
    });
    return (await this.runs.getView(runId))!;
  }
}

function assertJsonObject(bytes: Buffer): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalidAttribute('RUNS_INVALID_PLAN_JSON', '/plan_json', 'plan_json must be a JSON object');
  }
}
