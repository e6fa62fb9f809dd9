/** A `kind_b` set's configuration files inside a policy archive: `policies.hcl`, else `policies.json`. */
export const OPA_CONFIG_FILES = ['policies.hcl', 'policies.json'] as const;

/** A `policy "<name>" { query = …, enforcement_level = …, description = … }` block. */
export interface OpaPolicyBlock {
  name: string;
  /** advisory (the default) or mandatory. */
  enforcementLevel: 'advisory' | 'mandatory';
  query: string;
  description: string;
}

/**
 * The policy blocks of a parsed `policies.hcl` (hcl2json's `{"policy": {"<name>": [{…}]}}`) or
 * `policies.json` (HCL's JSON syntax also allows one body instead of a list, and a list of label
 * objects). Throws an Error naming what is wrong: a repeated name, no query, an unknown level.
 */
export function opaPolicies(parsed: unknown): OpaPolicyBlock[] {
  const root = isObject(parsed) ? parsed : {};
  const blocks = root.policy;
  if (blocks === undefined) return [];
  const labelled: Array<[string, unknown]> = Array.isArray(blocks)
    ? blocks.flatMap((b) => (isObject(b) ? Object.entries(b) : []))
    : isObject(blocks)
      ? Object.entries(blocks)
      : [];
  if (labelled.length === 0 && !isObject(blocks) && !Array.isArray(blocks))
    throw new Error('"policy" must be a block with a name label');
  const seen = new Set<string>();
  const policies: OpaPolicyBlock[] = [];
  for (const [name, bodies] of labelled) {
    const list = Array.isArray(bodies) ? bodies : [bodies];
    if (list.length !== 1 || seen.has(name)) throw new Error(`policy "${name}" is declared more than once`);
    seen.add(name);
    const body = isObject(list[0]) ? list[0] : {};
    const query = body.query;
    if (typeof query !== 'string' || query.trim() === '') throw new Error(`policy "${name}" has no query`);
    const level = body.enforcement_level ?? 'advisory';
    if (level !== 'advisory' && level !== 'mandatory')
      throw new Error(
        `policy "${name}" has enforcement_level ${JSON.stringify(level)}; use "advisory" or "mandatory"`,
      );
    const description = typeof body.description === 'string' ? body.description : '';
    policies.push({ name, enforcementLevel: level, query: query.trim(), description });
  }
  return policies;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
