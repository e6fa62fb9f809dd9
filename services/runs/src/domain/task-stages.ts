import type { PolicySetSnapshot } from './evaluation.js';
import { RUN_STATUS, type RunStatus } from './run-status.js';

/*
 * Task stages and policy evaluations (docs/adr/0044-task-stages-and-policy-evaluations.md): kind_b
 * sets and agent-enabled kind_a sets are enforced through a run's `post_plan` stage, with one
 * policy evaluation per policy kind, instead of a policy check.
 */

export const STAGE_STATUS = {
  pending: 'pending',
  running: 'running',
  passed: 'passed',
  failed: 'failed',
  awaitingOverride: 'awaiting_override',
  errored: 'errored',
  canceled: 'canceled',
} as const;
export type StageStatus = (typeof STAGE_STATUS)[keyof typeof STAGE_STATUS];

export const EVALUATION_STATUS = {
  pending: 'pending',
  queued: 'queued',
  running: 'running',
  passed: 'passed',
  failed: 'failed',
  overridden: 'overridden',
  errored: 'errored',
  canceled: 'canceled',
} as const;
export type EvaluationStatus = (typeof EVALUATION_STATUS)[keyof typeof EVALUATION_STATUS];

/** An evaluation an evaluator may still work on. */
export const isOpenEvaluation = (status: string): boolean =>
  status === EVALUATION_STATUS.queued || status === EVALUATION_STATUS.running;

/** Sets a policy check evaluates: kind_a outside agents. Everything else goes to the stage. */
export const belongsToCheck = (set: PolicySetSnapshot): boolean => set.kind === 'kind_a' && !set.agentEnabled;

/**
 * Splits the applicable sets: those of the policy check, and those of the task stage grouped by
 * kind (one evaluation per kind, kinds in a stable order).
 */
export function partitionSets(sets: readonly PolicySetSnapshot[]): {
  checkSets: PolicySetSnapshot[];
  evaluationSets: Map<string, PolicySetSnapshot[]>;
} {
  const checkSets: PolicySetSnapshot[] = [];
  const evaluationSets = new Map<string, PolicySetSnapshot[]>();
  for (const set of sets) {
    if (belongsToCheck(set)) checkSets.push(set);
    else evaluationSets.set(set.kind, [...(evaluationSets.get(set.kind) ?? []), evaluationSet(set)]);
  }
  return { checkSets, evaluationSets: new Map([...evaluationSets].sort(([a], [b]) => a.localeCompare(b))) };
}

/** The level of a policy in an evaluation: advisory stays, anything else is `mandatory` (upstream). */
export const evaluationLevel = (level: string): 'advisory' | 'mandatory' =>
  level === 'advisory' ? 'advisory' : 'mandatory';

/**
 * In an evaluation kind_b policies are advisory or mandatory (one stored before policy-sets took
 * `mandatory` may say soft- or hard-mandatory). kind_a policies keep their Sentinel level (the
 * engine needs it) and are reported as mandatory or advisory.
 */
function evaluationSet(set: PolicySetSnapshot): PolicySetSnapshot {
  if (set.kind !== 'kind_b') return set;
  return {
    ...set,
    policies: set.policies.map((p) => ({
      ...p,
      enforcementLevel: evaluationLevel(
        p.enforcementLevel,
      ) as PolicySetSnapshot['policies'][0]['enforcementLevel'],
    })),
  };
}

export interface ResultCount {
  advisory_failed: number;
  mandatory_failed: number;
  passed: number;
  errored: number;
}

/** One policy's result in a policy set outcome, in upstream's snake_case. */
export interface OutcomePolicy {
  policy_name: string;
  enforcement_level: 'advisory' | 'mandatory';
  query: string | null;
  status: 'passed' | 'failed' | 'errored';
  description: string | null;
  output: Array<{ print: string }>;
}

export interface SetOutcome {
  policySetId: string;
  policySetName: string;
  policySetDescription: string | null;
  overridable: boolean | null;
  error: string | null;
  outcomes: OutcomePolicy[];
  resultCount: ResultCount;
}

export function countResults(outcomes: readonly OutcomePolicy[]): ResultCount {
  const count: ResultCount = { advisory_failed: 0, mandatory_failed: 0, passed: 0, errored: 0 };
  for (const o of outcomes) {
    if (o.status === 'passed') count.passed++;
    else if (o.status === 'errored') count.errored++;
    else if (o.enforcement_level === 'advisory') count.advisory_failed++;
    else count.mandatory_failed++;
  }
  return count;
}

export const sumCounts = (counts: readonly ResultCount[]): ResultCount =>
  counts.reduce(
    (a, c) => ({
      advisory_failed: a.advisory_failed + c.advisory_failed,
      mandatory_failed: a.mandatory_failed + c.mandatory_failed,
      passed: a.passed + c.passed,
      errored: a.errored + c.errored,
    }),
    { advisory_failed: 0, mandatory_failed: 0, passed: 0, errored: 0 },
  );

/**
 * An evaluation's verdict: any errored policy (nothing passes unevaluated) → errored; any
 * mandatory failure → failed; else passed (advisory failures are counted only). `overridable`
 * says whether every set with a mandatory failure allows an override.
 */
export function decideEvaluation(sets: readonly SetOutcome[]): {
  status: EvaluationStatus;
  overridable: boolean;
} {
  const total = sumCounts(sets.map((s) => s.resultCount));
  if (total.errored > 0 || sets.some((s) => s.error))
    return { status: EVALUATION_STATUS.errored, overridable: false };
  if (total.mandatory_failed === 0) return { status: EVALUATION_STATUS.passed, overridable: false };
  const overridable = sets.every((s) => s.resultCount.mandatory_failed === 0 || s.overridable === true);
  return { status: EVALUATION_STATUS.failed, overridable };
}

/**
 * The stage's status once none of its evaluations is open: any errored → errored; any failed
 * without an override allowed → failed; any failed (all overridable) → awaiting_override; else
 * passed. Undefined while an evaluation is still open.
 */
export function stageStatusAfter(
  evaluations: ReadonlyArray<{ status: string; overridable: boolean }>,
): StageStatus | undefined {
  if (evaluations.some((e) => isOpenEvaluation(e.status) || e.status === EVALUATION_STATUS.pending))
    return undefined;
  if (evaluations.some((e) => e.status === EVALUATION_STATUS.canceled)) return STAGE_STATUS.canceled;
  if (evaluations.some((e) => e.status === EVALUATION_STATUS.errored)) return STAGE_STATUS.errored;
  const failed = evaluations.filter((e) => e.status === EVALUATION_STATUS.failed);
  if (failed.some((e) => !e.overridable)) return STAGE_STATUS.failed;
  if (failed.length > 0) return STAGE_STATUS.awaitingOverride;
  return STAGE_STATUS.passed;
}

/** Overriding is possible only while the stage awaits it, for a run that may still proceed. */
export const isStageOverridable = (stageStatus: string, runPlanOnly: boolean): boolean =>
  stageStatus === STAGE_STATUS.awaitingOverride && !runPlanOnly;

/** The run status a stage gives once the policy check (if any) let the run go on. */
export function runStatusForStage(stageStatus: string, runPlanOnly: boolean): RunStatus {
  switch (stageStatus) {
    case STAGE_STATUS.passed:
      return RUN_STATUS.postPlanCompleted;
    case STAGE_STATUS.awaitingOverride:
      // A plan-only run never waits for a decision: the failure is final, as for checks.
      return runPlanOnly ? RUN_STATUS.policySoftFailed : RUN_STATUS.postPlanAwaitingDecision;
    case STAGE_STATUS.failed:
    case STAGE_STATUS.errored:
      return RUN_STATUS.errored;
    case STAGE_STATUS.canceled:
      return RUN_STATUS.canceled;
    default:
      return RUN_STATUS.postPlanRunning;
  }
}
