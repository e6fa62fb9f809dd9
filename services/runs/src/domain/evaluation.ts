import { AppError, type ErrorItem } from '@policyhub/errors';
import type { PolicyOutcome } from './aggregation.js';
import { type EnforcementLevel, isEnforcementLevel } from './policy-check-status.js';

/** A policy as it applied when the plan finished. */
export interface PolicySnapshot {
  id: string;
  name: string;
  enforcementLevel: EnforcementLevel;
  code: string;
}

/** A kind_a policy set as it applied when the plan finished: the evaluator's input. */
export interface PolicySetSnapshot {
  id: string;
  name: string;
  kind: string;
  parameters: Record<string, string>;
  policies: PolicySnapshot[];
  /** Storage key of the current version's archive (versioned sets); empty otherwise. */
  archiveObjectKey: string;
  versionId: string;
}

export interface ReportedOutcome {
  policySetId: string;
  policyName: string;
  passed: boolean;
  enforcementLevel: string;
}

/**
 * Checks an evaluator's outcomes against what it was asked to evaluate: exactly one outcome per
 * listed policy (whose level is the snapshot's, whatever the evaluator says), and outcomes for
 * other policies only from sets with an archive, each with a valid level. An incomplete report
 * must not turn into a pass.
 */
export function resolveOutcomes(
  sets: readonly PolicySetSnapshot[],
  reported: readonly ReportedOutcome[],
): PolicyOutcome[] {
  const problems: ErrorItem[] = [];
  const bySet = new Map(sets.map((s) => [s.id, s]));
  const seen = new Set<string>();
  const outcomes: PolicyOutcome[] = [];
  for (const r of reported) {
    const set = bySet.get(r.policySetId);
    const key = `${r.policySetId}/${r.policyName}`;
    if (!set) {
      problems.push(problem(`outcome for unknown policy set ${r.policySetId}`));
      continue;
    }
    if (seen.has(key)) {
      problems.push(problem(`more than one outcome for policy ${key}`));
      continue;
    }
    seen.add(key);
    const listed = set.policies.find((p) => p.name === r.policyName);
    if (listed) {
      outcomes.push({
        policySetId: set.id,
        policyName: listed.name,
        enforcementLevel: listed.enforcementLevel,
        passed: r.passed,
      });
    } else if (!set.archiveObjectKey) {
      problems.push(problem(`policy ${key} is not part of the check`));
    } else if (!isEnforcementLevel(r.enforcementLevel)) {
      problems.push(
        problem(`policy ${key} needs an enforcement level (advisory, soft-mandatory or hard-mandatory)`),
      );
    } else {
      outcomes.push({
        policySetId: set.id,
        policyName: r.policyName,
        enforcementLevel: r.enforcementLevel,
        passed: r.passed,
      });
    }
  }
  for (const set of sets) {
    for (const p of set.policies) {
      if (!seen.has(`${set.id}/${p.name}`))
        problems.push(problem(`no outcome for policy ${set.id}/${p.name}`));
    }
  }
  if (problems.length > 0) throw new AppError('invalid', 'RUNS_INVALID_OUTCOMES', problems);
  return outcomes;
}

const problem = (detail: string): ErrorItem => ({ title: 'invalid outcomes', detail });
