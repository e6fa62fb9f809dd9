import { randomBytes } from 'node:crypto';
import type { Queryable } from '@policyhub/db';
import { conflict, invalidAttribute, notFound } from '@policyhub/errors';
import { type LeaseRow, PolicyCheckRepository, type PolicyCheckRow } from '../db/policy-check-repository.js';
import { RunRepository, type RunRow } from '../db/run-repository.js';
import { aggregateOutcomes } from '../domain/aggregation.js';
import { type PolicySetSnapshot, type ReportedOutcome, resolveOutcomes } from '../domain/evaluation.js';
import { MAX_CLAIMS, leaseSeconds } from '../domain/lease.js';
import { CHECK_STATUS, type CheckStatus, runStatusAfterCheck } from '../domain/policy-check-status.js';
import { capReport, renderReport } from '../domain/report.js';
import { RUN_STATUS } from '../domain/run-status.js';
import type { WorkflowContext } from './context.js';
import { checkTimestamps, moveRun, recordRunEvent } from './transitions.js';

export interface EvaluationInput {
  check: PolicyCheckRow;
  policySets: Array<PolicySetSnapshot & { archive: Buffer | undefined }>;
  planJson: Buffer;
}

export interface Completion {
  outcomes: ReportedOutcome[];
  report: string;
  durationMs: number;
  engineDetailsJson: string;
}

const leaseLost = () =>
  conflict(
    'RUNS_LEASE_LOST',
    'the lease on this policy check was lost: another evaluator claimed it or it was decided',
  );

/** The evaluator protocol (internal API, no principal): claim, extend, input, complete, fail. */
export class EvaluatorWorkflows {
  private readonly checks: PolicyCheckRepository;

  constructor(private readonly ctx: WorkflowContext) {
    this.checks = new PolicyCheckRepository(ctx.db);
  }

  /**
   * Leases the oldest queued check that nobody holds (or whose lease expired). A check that has
   * already been handed out MAX_CLAIMS times without a decision is errored instead: an input
   * that crashes every evaluator must not circulate forever.
   */
  async claim(evaluatorId: string, requestedSeconds: number): Promise<LeaseRow | undefined> {
    const seconds = leaseSeconds(requestedSeconds);
    const owner = evaluatorId.slice(0, 200) || 'anonymous';
    return this.ctx.db.transaction(async (tx) => {
      const checks = new PolicyCheckRepository(tx);
      for (let i = 0; i < MAX_CLAIMS * 2; i++) {
        const check = await checks.nextClaimableForUpdate();
        if (!check) return undefined;
        if (check.attempts < MAX_CLAIMS) return checks.lease(check.id, owner, newLeaseToken(), seconds, true);
        await this.giveUp(tx, check);
      }
      return undefined;
    });
  }

  async extend(checkId: string, token: string, requestedSeconds: number): Promise<LeaseRow> {
    const seconds = leaseSeconds(requestedSeconds);
    return this.ctx.db.transaction(async (tx) => {
      const checks = new PolicyCheckRepository(tx);
      const check = requireLease(await checks.getForUpdate(checkId), token);
      return checks.lease(check.id, leaseOwner(check), token, seconds, false);
    });
  }

  /** The applicable sets as they were when the plan finished, archives and the plan JSON. */
  async input(checkId: string, token: string): Promise<EvaluationInput> {
    const check = requireLease(await this.checks.get(checkId), token);
    const run = (await new RunRepository(this.ctx.db).get(check.run_id))!;
    const sets = await this.checks.policySets(checkId);
    const [planJson, archives] = await Promise.all([
      run.plan_object_key ? this.ctx.objects.get(run.plan_object_key) : undefined,
      Promise.all(
        sets.map((s) => (s.archiveObjectKey ? this.ctx.objects.get(s.archiveObjectKey) : undefined)),
      ),
    ]);
    if (!planJson) {
      throw conflict('RUNS_PLAN_MISSING', 'the run has no stored plan JSON; the check cannot be evaluated');
    }
    const missing = sets.filter((s, i) => s.archiveObjectKey && !archives[i]);
    if (missing.length > 0) {
      throw conflict(
        'RUNS_POLICY_ARCHIVE_MISSING',
        `the archive of policy set ${missing[0]!.name} is gone; the check cannot be evaluated`,
      );
    }
    return { check, planJson, policySets: sets.map((s, i) => ({ ...s, archive: archives[i] })) };
  }

  /** Aggregates the outcomes and moves the check and its run on (DESIGN §8). */
  async complete(checkId: string, token: string, completion: Completion): Promise<CheckStatus> {
    const found = requireLease(await this.checks.get(checkId), token);
    const sets = await this.checks.policySets(checkId);
    const outcomes = resolveOutcomes(sets, completion.outcomes);
    const { status, result } = aggregateOutcomes(
      outcomes,
      completion.durationMs,
      parseEngineDetails(completion.engineDetailsJson),
    );
    const setNames = new Map(sets.map((s) => [s.id, s.name]));
    const report =
      completion.report.trim() !== ''
        ? completion.report
        : renderReport(
            outcomes.map((o) => ({ ...o, setName: setNames.get(o.policySetId) ?? o.policySetId })),
          );
    await this.ctx.db.transaction(async (tx) => {
      const run = await new RunRepository(tx).getForUpdate(found.run_id);
      const check = requireLease(await new PolicyCheckRepository(tx).getForUpdate(checkId), token);
      await new PolicyCheckRepository(tx).decide(check.id, {
        status,
        statusTimestamps: checkTimestamps(check, status),
        result,
        outcomes,
        output: capReport(report),
      });
      if (run?.status === RUN_STATUS.policyChecking)
        await moveRun(tx, run, runStatusAfterCheck(status, run.plan_only));
    });
    return status;
  }

  /** The evaluation could not be done: check → errored, run → errored. */
  async fail(checkId: string, token: string, errorMessage: string, report: string): Promise<void> {
    const found = requireLease(await this.checks.get(checkId), token);
    const message = errorMessage.trim().slice(0, 10_000) || 'the evaluator reported an error';
    await this.ctx.db.transaction(async (tx) => {
      const run = await new RunRepository(tx).getForUpdate(found.run_id);
      const check = requireLease(await new PolicyCheckRepository(tx).getForUpdate(checkId), token);
      await this.error(
        tx,
        run,
        check,
        message,
        report.trim() !== '' ? report : `Policy check errored: ${message}\n`,
      );
    });
  }

  private async giveUp(tx: Queryable, check: PolicyCheckRow): Promise<void> {
    // SKIP LOCKED on the run: a cancellation holding it (it locks run → check) decides instead.
    const { rows } = await tx.query<RunRow>('SELECT * FROM runs WHERE id = $1 FOR UPDATE SKIP LOCKED', [
      check.run_id,
    ]);
    const message = `no evaluator finished the check within ${MAX_CLAIMS} leases`;
    await this.error(tx, rows[0], check, message, `Policy check errored: ${message}\n`);
  }

  private async error(
    tx: Queryable,
    run: RunRow | undefined,
    check: PolicyCheckRow,
    message: string,
    report: string,
  ) {
    await new PolicyCheckRepository(tx).decide(check.id, {
      status: CHECK_STATUS.errored,
      statusTimestamps: checkTimestamps(check, CHECK_STATUS.errored),
      errorMessage: message,
      output: capReport(report),
    });
    if (run?.status === RUN_STATUS.policyChecking) {
      await moveRun(tx, run, runStatusAfterCheck(CHECK_STATUS.errored, run.plan_only));
      await recordRunEvent(tx, {
        runId: run.id,
        action: 'errored',
        description: message,
        policyCheckId: check.id,
      });
    }
  }
}

/** The check, if `token` still holds its lease and it is undecided; else RUNS_LEASE_LOST. */
function requireLease(check: PolicyCheckRow | undefined, token: string): PolicyCheckRow {
  if (!check) throw notFound('RUNS_POLICY_CHECK_NOT_FOUND');
  if (check.status !== CHECK_STATUS.queued || !token || check.lease_token !== token) throw leaseLost();
  return check;
}

const leaseOwner = (check: PolicyCheckRow) => check.lease_owner ?? 'anonymous';

const newLeaseToken = () => randomBytes(24).toString('base64url');

function parseEngineDetails(json: string): Record<string, unknown> | undefined {
  if (json.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalidAttribute(
      'RUNS_INVALID_ENGINE_DETAILS',
      '/engine_details_json',
      'engine_details_json must be a JSON object',
    );
  }
  return parsed as Record<string, unknown>;
}
