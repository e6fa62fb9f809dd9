import type { Queryable } from '@policyhub/db';
import { conflict, newId, notFound } from '@policyhub/errors';
import type { LeaseRow } from '../db/policy-check-repository.js';
import { RunRepository, type RunRow } from '../db/run-repository.js';
import { lockRunAndStage } from '../db/run-locks.js';
import { type PolicyEvaluationRow, TaskStageRepository } from '../db/task-stage-repository.js';
import { declaredPolicies, type PolicySetSnapshot, resolveOutcomes } from '../domain/evaluation.js';
import { MAX_CLAIMS } from '../domain/lease.js';
import type { ObjectInfo } from '../domain/ports.js';
import { RUN_STATUS, withStatusTimestamp } from '../domain/run-status.js';
import {
  EVALUATION_STATUS,
  type EvaluationStatus,
  type OutcomePolicy,
  STAGE_STATUS,
  type SetOutcome,
  countResults,
  decideEvaluation,
  evaluationLevel,
  isOpenEvaluation,
  runStatusForStage,
  stageStatusAfter,
  sumCounts,
} from '../domain/task-stages.js';
import type { Deps } from '../deps.js';
import { type EngineParameters, engineParameters } from './set-parameters.js';
import { moveRun, recordRunEvent } from './transitions.js';

/*
 * The evaluator protocol for policy evaluations (task stages). The evaluator claims them through
 * the same calls as policy checks (ClaimPolicyCheck hands out either; every later call carries the
 * id, which says which one it is), so checks and evaluations share one pipeline in the evaluator.
 */

/** Policy evaluation ids start with this (newId's prefix); check ids with `polchk-`. */
export const isPolicyEvaluationId = (id: string): boolean => id.startsWith('poleval-');

/** One policy's outcome as an evaluator reports it for an evaluation. */
export interface ReportedEvaluationOutcome {
  policySetId: string;
  policyName: string;
  result: 'passed' | 'failed' | 'errored';
  output: string[];
  query: string | undefined;
  description: string | undefined;
}

export interface PolicyEvaluationInput {
  evaluation: PolicyEvaluationRow;
  policySets: Array<PolicySetSnapshot & { archive: ObjectInfo | undefined; parameters: EngineParameters }>;
  plan: ObjectInfo;
  run: RunRow;
}

const leaseLost = () =>
  conflict(
    'RUNS_LEASE_LOST',
    'the lease on this policy evaluation was lost: another evaluator claimed it or it was decided',
  );

/** An output line as upstream's outcomes carry it. */
const printed = (lines: readonly string[]) => lines.map((print) => ({ print }));

export class PolicyEvaluationLeases {
  private readonly stages: TaskStageRepository;

  constructor(private readonly deps: Deps) {
    this.stages = new TaskStageRepository(deps.db);
  }

  /**
   * Leases an evaluation the claim picked and locked (EvaluatorUseCases.claim, in its
   * transaction); its first claim moves it to `running`.
   */
  async lease(tx: Queryable, id: string, owner: string, seconds: number, token: string): Promise<LeaseRow> {
    const stages = new TaskStageRepository(tx);
    const evaluation = (await stages.getEvaluation(id))!;
    const first = evaluation.status === EVALUATION_STATUS.queued;
    return stages.leaseEvaluation(evaluation.id, owner, token, seconds, {
      statusTimestamps: first
        ? withStatusTimestamp(evaluation.status_timestamps, EVALUATION_STATUS.running)
        : evaluation.status_timestamps,
    });
  }

  /** An evaluation handed out MAX_CLAIMS times without a decision is errored (if still open). */
  async giveUp(id: string): Promise<void> {
    await this.decideErrored(
      id,
      undefined,
      `no evaluator finished the policy evaluation within ${MAX_CLAIMS} leases`,
    );
  }

  async extend(id: string, token: string, seconds: number): Promise<LeaseRow> {
    return this.deps.db.transaction(async (tx) => {
      const stages = new TaskStageRepository(tx);
      const evaluation = requireLease(await stages.getEvaluationForUpdate(id), token);
      return stages.leaseEvaluation(
        evaluation.id,
        evaluation.lease_owner ?? 'anonymous',
        token,
        seconds,
        undefined,
      );
    });
  }

  async input(id: string, token: string): Promise<PolicyEvaluationInput> {
    const evaluation = requireLease(await this.stages.getEvaluation(id), token);
    const run = (await new RunRepository(this.deps.db).get(evaluation.run_id))!;
    const sets = await this.stages.policySets(id);
    const keys = [run.plan_object_key, ...sets.map((s) => s.archiveObjectKey)].filter(
      (k): k is string => !!k,
    );
    const found = new Map((await this.deps.objects.stat(keys)).map((o) => [o.key, o]));
    const plan = run.plan_object_key ? found.get(run.plan_object_key) : undefined;
    if (!plan) throw conflict('RUNS_PLAN_MISSING', 'the run has no stored plan JSON; it cannot be evaluated');
    const missing = sets.find((s) => s.archiveObjectKey && !found.get(s.archiveObjectKey));
    if (missing) {
      throw conflict(
        'RUNS_POLICY_ARCHIVE_MISSING',
        `the archive of policy set ${missing.name} is gone; the evaluation cannot be done`,
      );
    }
    // Agent-mode kind_a sets get their parameters as checks do (one pipeline, set-parameters.ts).
    const parametersOf = await engineParameters(
      this.deps.policySets,
      { name: evaluation.organization, id: evaluation.organization_id },
      sets,
    );
    return {
      evaluation,
      run,
      plan,
      policySets: sets.map((s) => ({
        ...s,
        archive: s.archiveObjectKey ? found.get(s.archiveObjectKey) : undefined,
        parameters: parametersOf(s.id),
      })),
    };
  }

  async readObject(id: string, token: string, key: string): Promise<AsyncIterable<Buffer>> {
    const evaluation = requireLease(await this.stages.getEvaluation(id), token);
    const run = await new RunRepository(this.deps.db).get(evaluation.run_id);
    const sets = await this.stages.policySets(id);
    const readable = new Set([run?.plan_object_key, ...sets.map((s) => s.archiveObjectKey)].filter(Boolean));
    if (!key || !readable.has(key)) throw notFound('RUNS_OBJECT_NOT_FOUND');
    return this.deps.objects.open(key);
  }

  /**
   * Records one outcome per set and decides the evaluation (errored / failed / passed), then the
   * stage once no evaluation of it is open, then the run. Outcomes that do not cover exactly the
   * evaluation's policies (listed ones, and those the archives' configuration files declare)
   * error it instead: nothing passes unevaluated.
   */
  async complete(
    id: string,
    token: string,
    reported: readonly ReportedEvaluationOutcome[],
  ): Promise<{ status: EvaluationStatus; errorMessage: string | undefined }> {
    requireLease(await this.stages.getEvaluation(id), token);
    const sets = await this.stages.policySets(id);
    const declared = declaredPolicies(sets);
    const resolution = resolveOutcomes(
      sets,
      declared,
      reported.map((r) => ({
        policySetId: r.policySetId,
        policyName: r.policyName,
        passed: r.result === 'passed',
      })),
    );
    if (resolution.problems.length > 0) {
      const message = `the evaluation does not cover the policies of its sets: ${resolution.problems.join('; ')}`;
      await this.decideErrored(id, token, message);
      return { status: EVALUATION_STATUS.errored, errorMessage: message };
    }
    const byKey = new Map(reported.map((r) => [`${r.policySetId}\u0000${r.policyName}`, r]));
    const known = new Map<string, { query?: string | undefined; description?: string | undefined }>();
    for (const set of sets) {
      for (const p of set.policies) known.set(`${set.id}\u0000${p.name}`, p);
      const fromArchive = declared.get(set.id);
      if (Array.isArray(fromArchive)) for (const p of fromArchive) known.set(`${set.id}\u0000${p.name}`, p);
    }
    const setOutcomes: SetOutcome[] = sets.map((set) => {
      const outcomes: OutcomePolicy[] = resolution.outcomes
        .filter((o) => o.policySetId === set.id)
        .map((o) => {
          const key = `${set.id}\u0000${o.policyName}`;
          const r = byKey.get(key)!;
          const declaredPolicy = known.get(key);
          return {
            policy_name: o.policyName,
            enforcement_level: evaluationLevel(o.enforcementLevel),
            query: declaredPolicy?.query || r.query || null,
            status: r.result,
            description: declaredPolicy?.description || r.description || null,
            output: printed(r.output),
          };
        });
      return {
        policySetId: set.id,
        policySetName: set.name,
        policySetDescription: set.description ?? null,
        overridable: set.overridable ?? null,
        error: null,
        outcomes,
        resultCount: countResults(outcomes),
      };
    });
    const { status, overridable } = decideEvaluation(setOutcomes);
    await this.decide(id, token, { status, overridable, setOutcomes, errorMessage: undefined });
    return { status, errorMessage: undefined };
  }

  /** The evaluation could not be done (no engine, a crashed engine, bad input): errored, run stopped. */
  async fail(id: string, token: string, errorMessage: string | undefined): Promise<void> {
    requireLease(await this.stages.getEvaluation(id), token);
    await this.decideErrored(
      id,
      token,
      errorMessage?.trim().slice(0, 10_000) || 'the evaluator reported an error',
    );
  }

  /** Errored, with one outcome per set carrying the message (clients read why from the outcomes). */
  private async decideErrored(id: string, token: string | undefined, message: string): Promise<void> {
    const sets = await this.stages.policySets(id);
    const setOutcomes: SetOutcome[] = sets.map((set) => ({
      policySetId: set.id,
      policySetName: set.name,
      policySetDescription: set.description ?? null,
      overridable: set.overridable ?? null,
      error: message,
      outcomes: [],
      resultCount: countResults([]),
    }));
    await this.decide(id, token, {
      status: EVALUATION_STATUS.errored,
      overridable: false,
      setOutcomes,
      errorMessage: message,
    });
  }

  /**
   * In one transaction, locking the run, then the stage, then the evaluation (the lock order of
   * every status change), with the lease checked inside the locks (`token` undefined: giving up
   * on an expired evaluation, which must still be open).
   */
  private async decide(
    id: string,
    token: string | undefined,
    d: {
      status: EvaluationStatus;
      overridable: boolean;
      setOutcomes: SetOutcome[];
      errorMessage: string | undefined;
    },
  ): Promise<void> {
    const found = await this.stages.getEvaluation(id);
    if (!found) throw notFound('RUNS_POLICY_EVALUATION_NOT_FOUND');
    await this.deps.db.transaction(async (tx) => {
      const locked = await lockRunAndStage(tx, found.task_stage_id);
      if (!locked) throw notFound('RUNS_POLICY_EVALUATION_NOT_FOUND');
      const stages = new TaskStageRepository(tx);
      const evaluation = await stages.getEvaluationForUpdate(id);
      if (token === undefined) {
        if (!evaluation || !isOpenEvaluation(evaluation.status)) return;
      } else requireLease(evaluation, token);
      await stages.insertOutcomes(
        id,
        d.setOutcomes.map((o) => ({ ...o, id: newId('polsetout') })),
      );
      await stages.decideEvaluation(id, {
        status: d.status,
        statusTimestamps: withStatusTimestamp(evaluation!.status_timestamps, d.status),
        resultCount: sumCounts(d.setOutcomes.map((o) => o.resultCount)),
        overridable: d.overridable,
        errorMessage: d.errorMessage,
      });
      await this.settleStage(tx, locked.stage.id, d.errorMessage);
    });
  }

  /** Once no evaluation of the stage is open: the stage's status, then the run's. */
  private async settleStage(tx: Queryable, stageId: string, errorMessage: string | undefined): Promise<void> {
    const stages = new TaskStageRepository(tx);
    const stage = (await stages.getStage(stageId))!;
    if (stage.status !== STAGE_STATUS.running && stage.status !== STAGE_STATUS.pending) return;
    const status = stageStatusAfter(await stages.evaluationsOfStageForUpdate(stageId));
    if (!status) return;
    await stages.updateStage(stageId, status, withStatusTimestamp(stage.status_timestamps, status));
    const run = (await new RunRepository(tx).get(stage.run_id))!;
    // A run still in its policy check goes on (or not) when the check is decided.
    if (run.status !== RUN_STATUS.postPlanRunning) return;
    await moveRun(tx, run, runStatusForStage(status, run.plan_only));
    if (status === STAGE_STATUS.errored || status === STAGE_STATUS.failed) {
      await recordRunEvent(tx, {
        runId: run.id,
        action: 'errored',
        description:
          status === STAGE_STATUS.errored
            ? `a policy evaluation errored${errorMessage ? `: ${errorMessage}` : ''}`
            : 'a mandatory policy failed in a policy set that does not allow overrides',
        taskStageId: stageId,
      });
    }
  }
}

/** The evaluation, if `token` still holds its lease and it is open; else RUNS_LEASE_LOST. */
function requireLease(evaluation: PolicyEvaluationRow | undefined, token: string): PolicyEvaluationRow {
  if (!evaluation) throw notFound('RUNS_POLICY_EVALUATION_NOT_FOUND');
  if (!isOpenEvaluation(evaluation.status) || !token || evaluation.lease_token !== token) throw leaseLost();
  return evaluation;
}
