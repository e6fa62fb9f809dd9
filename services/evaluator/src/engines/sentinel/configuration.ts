import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ARCHIVE_LIMITS } from '@policyhub/archive-reader';
import type { EnforcementLevel } from '../engine.js';
import { parseHcl } from '../hcl.js';

/** Sentinel's configuration file, in a set's policies directory. */
export const SENTINEL_CONFIG_FILE = 'sentinel.hcl';

const SENTINEL_LEVELS: ReadonlySet<unknown> = new Set<EnforcementLevel>([
  'advisory',
  'soft-mandatory',
  'hard-mandatory',
]);

/** A `policy` block of a configuration. */
export interface SentinelPolicyBlock {
  name: string;
  /** Sentinel's default is advisory. */
  enforcementLevel: EnforcementLevel;
  /** `source` as written; '' when absent (the policy is then `<name>.sentinel` beside the file). */
  source: string;
}

export interface SentinelConfiguration {
  /** The whole file as hcl2json gives it (`{"policy": {"<name>": [{…}]}, "module": …}`). */
  blocks: Record<string, unknown>;
  policies: SentinelPolicyBlock[];
}

/**
 * Reads `<dir>/sentinel.hcl` (named `shownAs` in errors): its blocks and the policies it declares.
 * Throws what Sentinel itself would refuse to run: no file, a file over 1 MiB, invalid HCL, a
 * policy declared twice, an unknown enforcement level, a source that is not a string.
 */
export async function readSentinelConfiguration(
  dir: string,
  shownAs: string,
): Promise<SentinelConfiguration> {
  const file = join(dir, SENTINEL_CONFIG_FILE);
  const size = await stat(file).then(
    (s) => (s.isFile() ? s.size : undefined),
    () => undefined,
  );
  if (size === undefined) throw new Error(`its archive has no ${shownAs}`);
  if (size > ARCHIVE_LIMITS.maxConfigBytes)
    throw new Error(`${shownAs} is larger than ${ARCHIVE_LIMITS.maxConfigBytes} bytes`);
  const parsed = await parseHcl(await readFile(file, 'utf8'), shownAs);
  const blocks = isObject(parsed) ? parsed : {};
  return { blocks, policies: policyBlocks(blocks.policy, shownAs) };
}

function policyBlocks(value: unknown, shownAs: string): SentinelPolicyBlock[] {
  if (value === undefined) return [];
  if (!isObject(value)) throw new Error(`${shownAs}: "policy" must be a block with a name label`);
  return Object.entries(value).map(([name, bodies]) => {
    const list = Array.isArray(bodies) ? bodies : [bodies];
    if (list.length !== 1) throw new Error(`${shownAs}: policy "${name}" is declared ${list.length} times`);
    const body = isObject(list[0]) ? list[0] : {};
    const level = body.enforcement_level ?? 'advisory';
    if (!SENTINEL_LEVELS.has(level)) {
      throw new Error(
        `${shownAs}: policy "${name}" has enforcement_level ${JSON.stringify(level)}; use advisory, soft-mandatory or hard-mandatory`,
      );
    }
    const source = body.source ?? '';
    if (typeof source !== 'string')
      throw new Error(`${shownAs}: policy "${name}" has a source that is not a string`);
    return { name, enforcementLevel: level as EnforcementLevel, source };
  });
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
