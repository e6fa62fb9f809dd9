import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ARCHIVE_LIMITS } from '@policyhub/archive-reader';
import { archivePath, configurationDir, type PreparedArchive } from '../engine.js';
import { parseHcl } from '../hcl.js';

/** An OPA set's configuration file: `policies.hcl`, else its JSON variant `policies.json`. */
export const OPA_CONFIG_FILES = ['policies.hcl', 'policies.json'] as const;

const OPA_LEVELS = new Set(['advisory', 'mandatory']);

/** A `policy "<name>" { query = …, enforcement_level = …, description = … }` block. */
export interface OpaPolicyBlock {
  name: string;
  /** The query naming the rule whose value decides, e.g. `data.terraform.policies.deny`. */
  query: string;
  /** advisory (the default) or mandatory. */
  enforcementLevel: 'advisory' | 'mandatory';
  description: string;
}

/**
 * The policies an OPA set's archive declares, from the configuration file in its policies
 * directory (upstream's "policy set layout": `policies.hcl`, or `policies.json` in HCL's JSON
 * syntax). Throws naming the file and what is wrong: none of the two files, a file over 1 MiB,
 * invalid HCL or JSON, a policy without a query or declared twice, an unknown level. Other
 * attributes of a block (a `source` kept for local tools, say) are not the evaluator's concern.
 */
export async function readOpaConfiguration(archive: PreparedArchive): Promise<OpaPolicyBlock[]> {
  const dir = configurationDir(archive);
  for (const name of OPA_CONFIG_FILES) {
    const file = join(dir, name);
    const size = await stat(file).then(
      (s) => (s.isFile() ? s.size : undefined),
      () => undefined,
    );
    if (size === undefined) continue;
    const shownAs = archivePath(archive, name);
    if (size > ARCHIVE_LIMITS.maxConfigBytes)
      throw new Error(`${shownAs} is larger than ${ARCHIVE_LIMITS.maxConfigBytes} bytes`);
    const text = await readFile(file, 'utf8');
    return policyBlocks(await parseConfiguration(text, name, shownAs), shownAs);
  }
  const where = archive.policiesPath ? `in ${archive.policiesPath}` : 'at its root';
  throw new Error(`its archive has no ${OPA_CONFIG_FILES.join(' or ')} ${where}`);
}

async function parseConfiguration(text: string, name: string, shownAs: string): Promise<unknown> {
  if (name.endsWith('.hcl')) return parseHcl(text, shownAs);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`${shownAs} is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * The policy blocks of the parsed file. hcl2json gives `{"policy": {"<name>": [{…}]}}`; HCL's
 * JSON syntax also allows one body instead of a list (`{"policy": {"<name>": {…}}}`) and a list
 * of label objects (`{"policy": [{"<name>": {…}}]}`).
 */
function policyBlocks(parsed: unknown, shownAs: string): OpaPolicyBlock[] {
  const fail = (message: string): never => {
    throw new Error(`${shownAs}: ${message}`);
  };
  const root = isObject(parsed) ? parsed : fail('must hold policy blocks');
  const declared = root.policy;
  if (declared === undefined) fail('declares no policy');
  const labelled = Array.isArray(declared) ? declared : [declared];
  const bodies = new Map<string, unknown[]>();
  for (const entry of labelled) {
    if (!isObject(entry)) return fail('policy blocks need a name (policy "name" { … })');
    for (const [name, body] of Object.entries(entry)) {
      bodies.set(name, [...(bodies.get(name) ?? []), ...(Array.isArray(body) ? body : [body])]);
    }
  }
  if (bodies.size === 0) fail('declares no policy');
  return [...bodies].map(([name, list]) => {
    const what = `policy "${name}"`;
    if (list.length !== 1) fail(`${what} is declared ${list.length} times`);
    const body = isObject(list[0]) ? list[0] : fail(`${what} must be a block`);
    const query = body.query;
    if (typeof query !== 'string' || query.trim() === '') fail(`${what} has no query`);
    const level = body.enforcement_level ?? 'advisory';
    if (typeof level !== 'string' || !OPA_LEVELS.has(level)) {
      fail(`${what} has enforcement_level ${JSON.stringify(level)}; use "advisory" or "mandatory"`);
    }
    const description = body.description ?? '';
    if (typeof description !== 'string') fail(`${what} description must be a string`);
    return {
      name,
      query: (query as string).trim(),
      enforcementLevel: level as OpaPolicyBlock['enforcementLevel'],
      description: description as string,
    };
  });
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
