import { RUN_STATUS, type RunStatus } from './run-status.js';

export const CHECK_STATUS = {
  queued: 'queued',
  passed: 'passed',
  softFailed: 'soft_failed',
  hardFailed: 'hard_failed',
  overridden: 'overridden',
  errored: 'errored',
  canceled: 'canceled',
} as const;
export type CheckStatus = (typeof CHECK_STATUS)[keyof typeof CHECK_STATUS];

export const ENFORCEMENT_LEVELS = ['advisory', 'soft-mandatory', 'hard-mandatory'] as const;
export type EnforcementLevel = (typeof ENFORCEMENT_LEVELS)[number];
export const isEnforcementLevel = (v: string): v is EnforcementLevel =>
  (ENFORCEMENT_LEVELS as readonly string[]).includes(v);

/**
 * Overriding is possible only for a soft failure of a run that waits for it (`policy_override`,
 * upstream): never for a plan-only run (`policy_soft_failed`), nor once the run was canceled or
 * errored (its soft failure stays what it was, but nothing can proceed any more).
 */
export const isOverridable = (checkStatus: string, runStatus: string): boolean =>
  checkStatus === CHECK_STATUS.softFailed && runStatus === RUN_STATUS.policyOverride;

/** The run status that follows a decided check (docs/policy-evaluation.md). */
export function runStatusAfterCheck(checkStatus: CheckStatus, runPlanOnly: boolean): RunStatus {
  switch (checkStatus) {
    case CHECK_STATUS.passed:
    case CHECK_STATUS.overridden:
      return RUN_STATUS.policyChecked;
    case CHECK_STATUS.softFailed:
      return runPlanOnly ? RUN_STATUS.policySoftFailed : RUN_STATUS.policyOverride;
    case CHECK_STATUS.hardFailed:
    case CHECK_STATUS.errored:
      return RUN_STATUS.errored;
    case CHECK_STATUS.canceled:
      return RUN_STATUS.canceled;
    case CHECK_STATUS.queued:
      return RUN_STATUS.policyChecking;
  }
}
