import { CHECK_STATUS, type CheckStatus, type EnforcementLevel } from './policy-check-status.js';

export interface PolicyOutcome {
  policySetId: string;
  policyName: string;
  enforcementLevel: EnforcementLevel;
  passed: boolean;
}

export interface CheckResult {
  result: boolean;
  passed: number;
  totalFailed: number;
  hardFailed: number;
  softFailed: number;
  advisoryFailed: number;
  durationMs: number;
  /** Opaque engine output (a non-empty JSON object). */
  engineDetails: Record<string, unknown>;
}

/**
 * Any hard-mandatory failure → hard_failed; else any soft-mandatory failure → soft_failed; else
 * passed. Advisory failures are counted but never block (docs/policy-evaluation.md).
 */
export function aggregateOutcomes(
  outcomes: readonly PolicyOutcome[],
  durationMs: number,
  engineDetails: Record<string, unknown> | undefined,
): { status: CheckStatus; result: CheckResult } {
  const failed = (level: EnforcementLevel) =>
    outcomes.filter((o) => !o.passed && o.enforcementLevel === level).length;
  const hardFailed = failed('hard-mandatory');
  const softFailed = failed('soft-mandatory');
  const advisoryFailed = failed('advisory');
  const status =
    hardFailed > 0 ? CHECK_STATUS.hardFailed : softFailed > 0 ? CHECK_STATUS.softFailed : CHECK_STATUS.passed;
  return {
    status,
    result: {
      result: status === CHECK_STATUS.passed,
      passed: outcomes.filter((o) => o.passed).length,
      totalFailed: hardFailed + softFailed + advisoryFailed,
      hardFailed,
      softFailed,
      advisoryFailed,
      durationMs: Math.max(0, Math.round(durationMs)),
      engineDetails:
        engineDetails && Object.keys(engineDetails).length > 0 ? engineDetails : summariseOutcomes(outcomes),
    },
  };
}

/** The engine hash when the engine gave none: clients need a non-empty object there. */
function summariseOutcomes(outcomes: readonly PolicyOutcome[]): Record<string, unknown> {
  return {
    policies: outcomes.map((o) => ({
      'policy-set-id': o.policySetId,
      policy: o.policyName,
      'enforcement-level': o.enforcementLevel,
      result: o.passed,
    })),
  };
}
