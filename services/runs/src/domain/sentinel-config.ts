import type { DeclaredPolicy } from './evaluation.js';
import { isEnforcementLevel } from './policy-check-status.js';

/** The `kind_a` framework's configuration file inside a policy archive. */
export const SENTINEL_CONFIG_FILE = 'sentinel.hcl';

export interface SentinelPolicyBlock extends DeclaredPolicy {
  /** `source` as written ('' when absent: the policy is `<name>.sentinel` beside the file). */
  source: string;
}

/**
 * The policy blocks of a parsed `sentinel.hcl` (the JSON form `@cdktn/hcl2json` gives:
 * `{"policy": {"<name>": [{"source": …, "enforcement_level": …}]}}`). Throws an Error naming
 * what is wrong: a repeated policy name, an unknown enforcement level, a non-string source.
 * Sentinel's default level is advisory.
 */
export function sentinelPolicies(parsed: unknown): SentinelPolicyBlock[] {
  const root = isObject(parsed) ? parsed : {};
  const blocks = root.policy;
  if (blocks === undefined) return [];
  if (!isObject(blocks)) throw new Error('"policy" must be a block with a name label');
  const policies: SentinelPolicyBlock[] = [];
  for (const [name, bodies] of Object.entries(blocks)) {
    const list = Array.isArray(bodies) ? bodies : [bodies];
    if (list.length !== 1) throw new Error(`policy "${name}" is declared ${list.length} times`);
    const body = isObject(list[0]) ? list[0] : {};
    const level = body.enforcement_level ?? 'advisory';
    if (typeof level !== 'string' || !isEnforcementLevel(level)) {
      throw new Error(
        `policy "${name}" has enforcement_level ${JSON.stringify(level)}; use advisory, soft-mandatory or hard-mandatory`,
      );
    }
    const source = body.source ?? '';
    if (typeof source !== 'string') throw new Error(`policy "${name}" has a source that is not a string`);
    policies.push({ name, enforcementLevel: level, source });
  }
  return policies;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
