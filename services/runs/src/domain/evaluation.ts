import type { PolicyOutcome } from './aggregation.js';
import { ENFORCEMENT_LEVELS, type EnforcementLevel, isEnforcementLevel } from './policy-check-status.js';

/** A policy as it applied when the plan finished. */
export interface PolicySnapshot {
  id: string;
  name: string;
  enforcementLevel: EnforcementLevel;
  code: string;
  /** kind_b: the query naming the rule that decides. */
  query?: string | undefined;
  description?: string | undefined;
}

/** A policy set as it applied when the plan finished: the evaluator's input. */
export interface PolicySetSnapshot {
  id: string;
  name: string;
  kind: string;
  // No parameters: their values are read from policy-sets when an evaluator asks for the input,
  // and never stored here (sensitive ones must not be; docs/adr/0055).
  policies: PolicySnapshot[];
  /** Storage key of the current version's archive (versioned sets); empty otherwise. */
  archiveObjectKey: string;
  versionId: string;
  /** Archive directory of the framework's configuration file (`policies-path`); absent or empty: the root. */
  policiesPath?: string;
  /** kind_a sets evaluated by an agent go to policy evaluations, not checks. */
  agentEnabled?: boolean | undefined;
  overridable?: boolean | undefined;
  description?: string | undefined;
  /** `policy-tool-version`; absent or empty: latest. */
  toolVersion?: string | undefined;
  /**
   * Versioned sets: what the current version's archive declares, as storage read it at upload
   * (policy-sets' snapshot, common.v1.ArchiveDeclaration). Absent for a version uploaded before
   * declarations were recorded: nothing here reads archives, so its checks are errored.
   */
  declaration?: ArchiveDeclaration | undefined;
}

/** A policy block of an archive's configuration file, as storage recorded it. */
export interface ArchivePolicy {
  name: string;
  /** The framework's word (advisory when the file gives none). */
  enforcementLevel: string;
  source: string;
  query: string;
  description: string;
}

/** What a version's archive declares (common.v1.ArchiveDeclaration). */
export interface ArchiveDeclaration {
  root: string;
  configPath: string;
  policies: ArchivePolicy[];
  /** Sentinel: the configuration's other blocks as JSON, for the engine ('' for OPA). */
  sentinelBlocksJson: string;
}

/** A policy an archive's configuration file declares, with its level (advisory when unset). */
export interface DeclaredPolicy {
  name: string;
  enforcementLevel: EnforcementLevel;
  query?: string | undefined;
  description?: string | undefined;
}

/** Why a versioned set without a recorded declaration cannot be evaluated. */
export const UNDECLARED_VERSION =
  'its current version was uploaded before PolicyHub recorded what archives declare; upload the version again';

/**
 * The policies each versioned set's archive declares, from the declarations carried in the
 * snapshot (read once, by storage, at upload): nothing here parses a configuration file. A set
 * without one, or with a level its kind does not have, is a problem named per set: no verdict
 * without evaluation.
 */
export function declaredPolicies(sets: readonly PolicySetSnapshot[]): DeclaredPolicies {
  const declared = new Map<string, readonly DeclaredPolicy[] | string>();
  for (const set of sets) {
    if (!set.archiveObjectKey) continue;
    if (!set.declaration) {
      declared.set(set.id, UNDECLARED_VERSION);
      continue;
    }
    const levels: readonly string[] = set.kind === 'kind_b' ? ['advisory', 'mandatory'] : ENFORCEMENT_LEVELS;
    const unknown = set.declaration.policies.find((p) => !levels.includes(p.enforcementLevel));
    if (unknown) {
      declared.set(
        set.id,
        `its archive declares policy ${unknown.name} with enforcement level ${JSON.stringify(unknown.enforcementLevel)}`,
      );
      continue;
    }
    declared.set(
      set.id,
      set.declaration.policies.map((p) => ({
        name: p.name,
        // kind_b's `mandatory` is not a check level; evaluations map it (domain/task-stages.ts).
        enforcementLevel: p.enforcementLevel as EnforcementLevel,
        query: p.query || undefined,
        description: p.description || undefined,
      })),
    );
  }
  return declared;
}

export interface ReportedOutcome {
  policySetId: string;
  policyName: string;
  passed: boolean;
  /** What the engine said, if anything; informational (the check's levels count). */
  enforcementLevel?: string;
}

/**
 * The policies a check must report, per set: the listed policies, or for a versioned set the
 * policies its archive declares (`declared`, keyed by set id; a string says why they could not
 * be read).
 */
export type DeclaredPolicies = ReadonlyMap<string, readonly DeclaredPolicy[] | string>;

export type Resolution = { outcomes: PolicyOutcome[]; problems: [] } | { outcomes: []; problems: string[] };

/**
 * No verdict without evaluation: checks an evaluator's outcomes against what the check holds.
 * Every policy of every set needs exactly one outcome; an outcome for a policy that is not part
 * of the check, a second outcome for a policy, a set whose policies are unknown, or a check with
 * no policy at all are problems, each naming the policies (`<set name>/<policy>`). Levels are
 * the check's (listed policies) or the archive configuration's, whatever the evaluator says.
 */
export function resolveOutcomes(
  sets: readonly PolicySetSnapshot[],
  declared: DeclaredPolicies,
  reported: readonly ReportedOutcome[],
): Resolution {
  const problems: string[] = [];
  const expected = new Map<string, Map<string, EnforcementLevel>>();
  for (const set of sets) {
    const policies = new Map<string, EnforcementLevel>();
    if (set.archiveObjectKey) {
      const fromArchive = declared.get(set.id);
      if (typeof fromArchive === 'string' || fromArchive === undefined) {
        problems.push(`policy set ${set.name}: ${fromArchive ?? 'its archive was not read'}`);
      } else {
        for (const p of fromArchive) policies.set(p.name, p.enforcementLevel);
      }
    }
    for (const p of set.policies) policies.set(p.name, p.enforcementLevel);
    expected.set(set.id, policies);
  }
  const byId = new Map(sets.map((s) => [s.id, s]));
  const seen = new Map<string, number>();
  const outcomes: PolicyOutcome[] = [];
  const unknown: string[] = [];
  for (const r of reported) {
    const set = byId.get(r.policySetId);
    const policies = expected.get(r.policySetId);
    const label = `${set?.name ?? r.policySetId}/${r.policyName}`;
    const level = policies?.get(r.policyName);
    if (!set || !level) {
      unknown.push(label);
      continue;
    }
    const key = `${set.id}\u0000${r.policyName}`;
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    if (count === 1) {
      outcomes.push({
        policySetId: set.id,
        policyName: r.policyName,
        enforcementLevel: level,
        passed: r.passed,
      });
    }
  }
  const missing: string[] = [];
  const repeated: string[] = [];
  let total = 0;
  for (const set of sets) {
    for (const name of expected.get(set.id)!.keys()) {
      total++;
      const count = seen.get(`${set.id}\u0000${name}`) ?? 0;
      if (count === 0) missing.push(`${set.name}/${name}`);
      if (count > 1) repeated.push(`${set.name}/${name}`);
    }
  }
  if (missing.length > 0) problems.push(`no outcome for ${list(missing)}`);
  if (repeated.length > 0) problems.push(`more than one outcome for ${list(repeated)}`);
  if (unknown.length > 0)
    problems.push(`outcome for policies that are not part of the check: ${list(unknown)}`);
  if (total === 0 && problems.length === 0) {
    problems.push(
      `the applicable policy sets (${sets.map((s) => s.name).join(', ') || 'none'}) hold no policy to evaluate`,
    );
  }
  return problems.length > 0 ? { outcomes: [], problems } : { outcomes, problems: [] };
}

const list = (names: readonly string[]) => names.join(', ');

export { isEnforcementLevel };
