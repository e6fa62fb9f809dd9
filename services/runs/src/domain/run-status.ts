/**
 * Run statuses this system uses (a subset of upstream's). Runs enter `pending`; the
 * executor's plan report moves them to `policy_checking` (a check was created), `post_plan_running`
 * (only a task stage was) or `planned` (no set applies); the check's outcome, then the stage's,
 * move them on.
 */
export const RUN_STATUS = {
  pending: 'pending',
  planned: 'planned',
  policyChecking: 'policy_checking',
  policyChecked: 'policy_checked',
  policyOverride: 'policy_override',
  policySoftFailed: 'policy_soft_failed',
  errored: 'errored',
  canceled: 'canceled',
  postPlanRunning: 'post_plan_running',
  postPlanAwaitingDecision: 'post_plan_awaiting_decision',
  postPlanCompleted: 'post_plan_completed',
  discarded: 'discarded',
} as const;
export type RunStatus = (typeof RUN_STATUS)[keyof typeof RUN_STATUS];

/** Statuses a run never leaves (no apply phase exists here). */
const FINAL_RUN_STATUSES: ReadonlySet<string> = new Set([
  RUN_STATUS.errored,
  RUN_STATUS.canceled,
  RUN_STATUS.discarded,
  RUN_STATUS.policySoftFailed,
]);

export const isFinalRunStatus = (status: string): boolean => FINAL_RUN_STATUSES.has(status);

/**
 * A run in progress (waiting for its plan, its policy check or its task stage): a user may
 * cancel it.
 */
export const isCancelable = (status: string): boolean =>
  status === RUN_STATUS.pending ||
  status === RUN_STATUS.policyChecking ||
  status === RUN_STATUS.postPlanRunning;

/**
 * A run that waits (for its plan, for a confirmation that never comes here, for a policy
 * decision): a user may discard it.
 */
export const isDiscardable = (status: string): boolean =>
  status === RUN_STATUS.pending ||
  status === RUN_STATUS.planned ||
  status === RUN_STATUS.policyChecked ||
  status === RUN_STATUS.policyOverride ||
  status === RUN_STATUS.postPlanAwaitingDecision ||
  status === RUN_STATUS.postPlanCompleted;

/**
 * Upstream statuses this system never enters: a filter naming them is valid and matches nothing.
 * Any other word is not a run status (400).
 */
export const UPSTREAM_ONLY_RUN_STATUSES: ReadonlySet<string> = new Set([
  'fetching',
  'fetching_completed',
  'pre_plan_running',
  'pre_plan_completed',
  'queuing',
  'plan_queued',
  'planning',
  'cost_estimating',
  'cost_estimated',
  'confirmed',
  'planned_and_finished',
  'planned_and_saved',
  'apply_queued',
  'applying',
  'applied',
  'force_canceled',
]);

/** The executor may report a finished plan only while the run is waiting for it. */
export const canFinishPlan = (status: string): boolean => status === RUN_STATUS.pending;

/**
 * Adds the timestamp of entering `status` (keyed by the status word; the gateway builds the
 * `policy-checked-at` keys clients read), never earlier than any timestamp already recorded
 * (clocks of replicas may differ slightly; clients expect a monotonic timeline).
 */
export function withStatusTimestamp(
  timestamps: Record<string, string>,
  status: string,
  now: Date = new Date(),
): Record<string, string> {
  const latest = Math.max(now.getTime(), ...Object.values(timestamps).map((t) => Date.parse(t) || 0));
  return { ...timestamps, [status]: new Date(latest).toISOString() };
}
