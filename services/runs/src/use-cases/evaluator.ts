import { randomBytes } from 'node:crypto';
import { MAX_DETAILS_BYTES, storableText, unstorableJson, unstorableText } from '@policyhub/db';
import type { Queryable } from '@policyhub/db';
import { conflict, invalidAttribute, notFound } from '@policyhub/errors';
import { ClaimTurnRepository } from '../db/claim-turn-repository.js';
import { lockRunAndCheck } from '../db/run-locks.js';
import { type LeaseRow, PolicyCheckRepository, type PolicyCheckRow } from '../db/policy-check-repository.js';
import { RunRepository, type RunRow } from '../db/run-repository.js';
import { aggregateOutcomes } from '../domain/aggregation.js';
import {
  declaredPolicies,
  type PolicySetSnapshot,
  type ReportedOutcome,
  resolveOutcomes,
} from '../domain/evaluation.js';
import type { ObjectInfo } from '../domain/ports.js';
import { MAX_CLAIMS, leaseSeconds } from '../domain/lease.js';
import { CHECK_STATUS, type CheckStatus, runStatusAfterCheck } from '../domain/policy-check-status.js';
import { capReport, renderReport } from '../domain/report.js';
import { RUN_STATUS } from '../domain/run-status.js';
import type { Deps } from '../deps.js';
import { checkTimestamps, moveRun, recordRunEvent, runStatusAfterCheckAndStage } from './transitions.js';
import { PolicyEvaluationLeases, isPolicyEvaluationId } from './policy-evaluations.js';
import { type EngineParameters, engineParameters } from './set-parameters.js';

export interface EvaluationInput {
  check: PolicyCheckRow;
  policySets: Array<PolicySetSnapshot & { archive: ObjectInfo | undefined; parameters: EngineParameters }>;
  plan: ObjectInfo;
  run: RunRow;
}

export interface Completion {
  outcomes: ReportedOutcome[];
  /** The engine's report; unset or blank: runs renders one from the outcomes. */
  report: string | undefined;
  durationMs: number;
  /** The engine's details as a JSON object; unset or blank: runs summarises the outcomes. */
  engineDetailsJson: string | undefined;
}

const leaseLost = () =>
  conflict(
    'RUNS_LEASE_LOST',
    'the lease on this policy check was lost: another evaluator claimed it or it was decided',
  );

/** The evaluator protocol (internal API, no principal): claim, extend, input, complete, fail. */
export class EvaluatorUseCases {
  private readonly checks: PolicyCheckRepository;
  /** Policy evaluations (task stages) share this protocol; their ids say which calls are theirs. */
  readonly evaluations: PolicyEvaluationLeases;

  constructor(private readonly deps: Deps) {
    this.checks = new PolicyCheckRepository(deps.db);
    this.evaluations = new PolicyEvaluationLeases(deps);
  }

  /**
   * Leases a queued check (or, for evaluators that take them, an open policy evaluation) that
   * nobody holds or whose lease expired: the oldest work of either kind of the organization whose
   * turn it is (ClaimTurnRepository), so one organization's backlog never holds up another's
   * checks or evaluations. Work that has already been handed out MAX_CLAIMS times without a
   * decision is errored instead: an input that crashes every evaluator must not circulate forever.
   */
  async claim(
    evaluatorId: string | undefined,
    requestedSeconds: number | undefined,
    includeEvaluations = false,
  ): Promise<LeaseRow | undefined> {
    const seconds = leaseSeconds(requestedSeconds);
    const owner = evaluatorId?.slice(0, 200) || 'anonymous';
    for (let round = 0; round < MAX_CLAIMS * 2; round++) {
      const claimed = await this.claimInTurn(owner, seconds, includeEvaluations);
      if (!('usedUp' in claimed)) return claimed.lease;
      // Decided in its own transaction: an evaluation's decision locks its run first.
      await this.evaluations.giveUp(claimed.usedUp);
    }
    return undefined;
  }

  private async claimInTurn(
    owner: string,
    seconds: number,
    includeEvaluations: boolean,
  ): Promise<{ lease: LeaseRow | undefined } | { usedUp: string }> {
    return this.deps.db.transaction(async (tx) => {
      const checks = new PolicyCheckRepository(tx);
      const turns = new ClaimTurnRepository(tx);
      let budget = MAX_CLAIMS * 2;
      const candidates = await turns.organizationsInTurn(CLAIM_CANDIDATES, includeEvaluations);
      // After the candidates (all of them holding leases), any organization's oldest work.
      for (const organizationKey of [...candidates, undefined]) {
        while (budget-- > 0) {
          const work = await turns.nextClaimableForUpdate(organizationKey, includeEvaluations);
          if (!work) break;
          if (work.kind === 'evaluation') {
            if (work.attempts >= MAX_CLAIMS) return { usedUp: work.id };
            await turns.taken(work.organization_key);
            return { lease: await this.evaluations.lease(tx, work.id, owner, seconds, newLeaseToken()) };
          }
          const check = (await checks.get(work.id))!;
          if (check.attempts < MAX_CLAIMS) {
            await turns.taken(work.organization_key);
            return { lease: await checks.lease(check.id, owner, newLeaseToken(), seconds, true) };
          }
          if (!(await this.giveUp(tx, check))) break;
        }
      }
      return { lease: undefined };
    });
  }

  async extend(checkId: string, token: string, requestedSeconds: number | undefined): Promise<LeaseRow> {
    const seconds = leaseSeconds(requestedSeconds);
    if (isPolicyEvaluationId(checkId)) return this.evaluations.extend(checkId, token, seconds);
    return this.deps.db.transaction(async (tx) => {
      const checks = new PolicyCheckRepository(tx);
      const check = requireLease(await checks.getForUpdate(checkId), token);
      return checks.lease(check.id, leaseOwner(check), token, seconds, false);
    });
  }

  /**
   * The applicable sets as they were when the plan finished, with references (key, size,
   * SHA-256) to the plan JSON and the archives (the evaluator reads them with readObject), and
   * the kind_a sets' current parameters, read from policy-sets for this answer only.
   */
  async input(checkId: string, token: string): Promise<EvaluationInput> {
    const check = requireLease(await this.checks.get(checkId), token);
    const run = (await new RunRepository(this.deps.db).get(check.run_id))!;
    const sets = await this.checks.policySets(checkId);
    const keys = [run.plan_object_key, ...sets.map((s) => s.archiveObjectKey)].filter(
      (k): k is string => !!k,
    );
    const found = new Map((await this.deps.objects.stat(keys)).map((o) => [o.key, o]));
    const plan = run.plan_object_key ? found.get(run.plan_object_key) : undefined;
    if (!plan) {
      throw conflict('RUNS_PLAN_MISSING', 'the run has no stored plan JSON; the check cannot be evaluated');
    }
    const missing = sets.filter((s) => s.archiveObjectKey && !found.get(s.archiveObjectKey));
    if (missing.length > 0) {
      throw conflict(
        'RUNS_POLICY_ARCHIVE_MISSING',
        `the archive of policy set ${missing[0]!.name} is gone; the check cannot be evaluated`,
      );
    }
    const parametersOf = await engineParameters(
      this.deps.policySets,
      { name: check.organization, id: check.organization_id },
      sets,
    );
    return {
      check,
      plan,
      run,
      policySets: sets.map((s) => ({
        ...s,
        archive: s.archiveObjectKey ? found.get(s.archiveObjectKey) : undefined,
        parameters: parametersOf(s.id),
      })),
    };
  }

  /**
   * The bytes of one object of the check's input (the plan or an archive it names), for the
   * holder of the lease only: evaluators reach storage through runs and nothing else.
   */
  async readObject(checkId: string, token: string, key: string): Promise<AsyncIterable<Buffer>> {
    if (isPolicyEvaluationId(checkId)) return this.evaluations.readObject(checkId, token, key);
    const check = requireLease(await this.checks.get(checkId), token);
    const run = await new RunRepository(this.deps.db).get(check.run_id);
    const sets = await this.checks.policySets(checkId);
    const readable = new Set([run?.plan_object_key, ...sets.map((s) => s.archiveObjectKey)].filter(Boolean));
    if (!key || !readable.has(key)) throw notFound('RUNS_OBJECT_NOT_FOUND');
    return this.deps.objects.open(key);
  }

  /**
   * Aggregates the outcomes and moves the check and its run on (docs/policy-evaluation.md). Outcomes that do not
   * cover exactly the check's policies (listed ones, and those the archives' configuration
   * files declare) error the check instead: no verdict without evaluation.
   */
  async complete(
    checkId: string,
    token: string,
    completion: Completion,
  ): Promise<{ status: CheckStatus; errorMessage: string | undefined }> {
    // Checked again under the lock below; this one spares the work for a lost lease.
    requireLease(await this.checks.get(checkId), token);
    const engineDetails = parseEngineDetails(completion.engineDetailsJson);
    const unstorable = unstorableCompletion(completion, engineDetails);
    if (unstorable) {
      const message = `the engine's result cannot be stored: ${unstorable}`;
      await this.fail(checkId, token, message, undefined);
      return { status: CHECK_STATUS.errored, errorMessage: message };
    }
    const sets = await this.checks.policySets(checkId);
    const resolution = resolveOutcomes(sets, declaredPolicies(sets), completion.outcomes);
    if (resolution.problems.length > 0) {
      const message = `the evaluation does not cover the policies of the check: ${resolution.problems.join('; ')}`;
      const engineReport = completion.report?.trim()
        ? `\n\nThe engine's report:\n\n${completion.report.trimEnd()}\n`
        : '';
      await this.fail(
        checkId,
        token,
        message,
        `Policy check errored: the evaluation does not cover the policies of the check.\n\n${resolution.problems
          .map((p) => `- ${p}`)
          .join('\n')}\n${engineReport}`,
      );
      return { status: CHECK_STATUS.errored, errorMessage: message };
    }
    const outcomes = resolution.outcomes;
    const { status, result } = aggregateOutcomes(outcomes, completion.durationMs, engineDetails);
    const setNames = new Map(sets.map((s) => [s.id, s.name]));
    const report = completion.report?.trim()
      ? completion.report
      : renderReport(outcomes.map((o) => ({ ...o, setName: setNames.get(o.policySetId) ?? o.policySetId })));
    await this.deps.db.transaction(async (tx) => {
      const { run, check } = lockedWithLease(await lockRunAndCheck(tx, checkId), token);
      await new PolicyCheckRepository(tx).decide(check.id, {
        status,
        statusTimestamps: checkTimestamps(check, status),
        result,
        outcomes,
        output: capReport(report),
      });
      if (run.status === RUN_STATUS.policyChecking)
        await moveRun(tx, run, await runStatusAfterCheckAndStage(tx, run, status));
    });
    return { status, errorMessage: undefined };
  }

  /** The evaluation could not be done: check → errored, run → errored. */
  async fail(
    checkId: string,
    token: string,
    errorMessage: string | undefined,
    report: string | undefined,
  ): Promise<void> {
    if (isPolicyEvaluationId(checkId)) return this.evaluations.fail(checkId, token, errorMessage);
    requireLease(await this.checks.get(checkId), token);
    // Whatever the evaluator says about a failure is kept, made storable (it may quote tenant data).
    const message = storableText(errorMessage?.trim().slice(0, 10_000) || 'the evaluator reported an error');
    await this.deps.db.transaction(async (tx) => {
      const { run, check } = lockedWithLease(await lockRunAndCheck(tx, checkId), token);
      await this.error(
        tx,
        run,
        check,
        message,
        report?.trim() ? storableText(report) : `Policy check errored: ${message}\n`,
      );
    });
  }

  /**
   * Errors a check that used up its leases; false when its run is locked by another transition,
   * which then decides (the next claim gives up on the check if it is still queued).
   */
  private async giveUp(tx: Queryable, check: PolicyCheckRow): Promise<boolean> {
    // SKIP LOCKED on the run: the check is locked already, and waiting for the run here would
    // invert the lock order (run → check, db/run-locks.ts).
    const run = await new RunRepository(tx).getForUpdateUnlessLocked(check.run_id);
    if (!run) return false;
    const message = `no evaluator finished the check within ${MAX_CLAIMS} leases`;
    await this.error(tx, run, check, message, `Policy check errored: ${message}\n`);
    return true;
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

/** The locked run and check, if `token` still holds the check's lease; else as requireLease. */
function lockedWithLease(
  locked: { run: RunRow; check: PolicyCheckRow } | undefined,
  token: string,
): { run: RunRow; check: PolicyCheckRow } {
  if (!locked) throw notFound('RUNS_POLICY_CHECK_NOT_FOUND');
  return { run: locked.run, check: requireLease(locked.check, token) };
}

const leaseOwner = (check: PolicyCheckRow) => check.lease_owner ?? 'anonymous';

/** Organizations considered per claim before falling back to the oldest check of any. */
const CLAIM_CANDIDATES = 8;

const newLeaseToken = () => randomBytes(24).toString('base64url');

/** Why the completion cannot be stored (tenant data the database refuses), or undefined. */
function unstorableCompletion(
  completion: Completion,
  details: Record<string, unknown> | undefined,
): string | undefined {
  const detailsBytes = Buffer.byteLength(completion.engineDetailsJson ?? '');
  if (detailsBytes > MAX_DETAILS_BYTES) {
    return `its details are ${detailsBytes} bytes of JSON, more than ${MAX_DETAILS_BYTES}`;
  }
  const inDetails = details && unstorableJson(details);
  if (inDetails) return `its details: ${inDetails}`;
  const inReport = completion.report && unstorableText(completion.report);
  if (inReport) return `its report ${inReport}`;
  return undefined;
}

function parseEngineDetails(json: string | undefined): Record<string, unknown> | undefined {
  if (json === undefined || json.trim() === '') return undefined;
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
