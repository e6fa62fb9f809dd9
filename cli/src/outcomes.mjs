/**
 * Reading a policy check: which policy passed or failed (from the check's text report, whose
 * layout is upstream's: `## Policy <i>: <set>/<policy> (<enforcement level>)` then
 * `Result: true|false`), and what the run's final state means for a CI gate.
 */

/**
 * @typedef {{ name: string, enforcementLevel: string, passed: boolean }} PolicyOutcome
 * @typedef {'passed' | 'overridden' | 'no-policies' | 'soft-failed' | 'hard-failed' | 'errored' | 'canceled' | 'discarded'} Verdict
 */

const HEADING =
  /^## Policy \d+: (.+) \((advisory|soft-mandatory|hard-mandatory)\)\n\nResult: (true|false)$/gm;

/** @param {string} report @returns {PolicyOutcome[]} */
export function policyOutcomes(report) {
  return [...report.matchAll(HEADING)].map((m) => ({
    name: /** @type {string} */ (m[1]),
    enforcementLevel: /** @type {string} */ (m[2]),
    passed: m[3] === 'true',
  }));
}

/** Run statuses that will not change without someone acting (or never). */
export const SETTLED_RUN_STATUSES = new Set([
  'planned',
  'policy_checked',
  'policy_override',
  'policy_soft_failed',
  'errored',
  'canceled',
  'post_plan_completed',
  'post_plan_awaiting_decision',
  'discarded',
]);

/** Run statuses in which the run waits for someone allowed to override (`--wait-override`). */
export const AWAITING_OVERRIDE_STATUSES = new Set(['policy_override', 'post_plan_awaiting_decision']);

/**
 * The verdict of a settled run, from its status, its policy check's and its task stage's (the
 * stage holds kind_b and agent-mode sets; `stageOverridden`: one of its evaluations was overridden).
 * @param {string} runStatus
 * @param {string | undefined} checkStatus
 * @param {{ status: string, overridden: boolean } | undefined} [stage]
 * @returns {Verdict}
 */
export function verdictOf(runStatus, checkStatus, stage) {
  switch (runStatus) {
    case 'planned':
      return 'no-policies';
    case 'policy_checked':
    case 'post_plan_completed':
      return checkStatus === 'overridden' || stage?.overridden ? 'overridden' : 'passed';
    case 'policy_override':
    case 'policy_soft_failed':
    case 'post_plan_awaiting_decision':
      return 'soft-failed';
    case 'canceled':
      return 'canceled';
    case 'discarded':
      return 'discarded';
    default:
      return checkStatus === 'hard_failed' || stage?.status === 'failed' ? 'hard-failed' : 'errored';
  }
}

/** 0: go on; 2: soft-failed (an override can let it through); 1: stop. @param {Verdict} verdict */
export function exitCodeOf(verdict) {
  switch (verdict) {
    case 'passed':
    case 'overridden':
    case 'no-policies':
      return 0;
    case 'soft-failed':
      return 2;
    default:
      return 1;
  }
}
