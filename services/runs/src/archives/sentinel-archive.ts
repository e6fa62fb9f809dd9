import { createRequire } from 'node:module';
import { readArchiveFile } from '@policyhub/archive-reader';
import { isAppError } from '@policyhub/errors';
import type { DeclaredPolicy } from '../domain/evaluation.js';
import { OPA_CONFIG_FILES, type OpaPolicyBlock, opaPolicies } from '../domain/opa-config.js';
import {
  SENTINEL_CONFIG_FILE,
  type SentinelPolicyBlock,
  sentinelPolicies,
} from '../domain/sentinel-config.js';

type Hcl2Json = { parse: (filename: string, contents: string) => Promise<unknown> };
// Loaded through require, untyped on purpose (as in storage): the package's typings reference the
// DOM lib, which would leak browser globals into every program that type-checks runs.
let hcl2json: Hcl2Json | undefined;

/** Parses a `sentinel.hcl` with HashiCorp's HCL parser (through @cdktn/hcl2json, ADR 0012). */
export async function parseSentinelConfig(text: string, filename = SENTINEL_CONFIG_FILE): Promise<unknown> {
  hcl2json ??= createRequire(import.meta.url)('@cdktn/hcl2json') as Hcl2Json;
  try {
    return await hcl2json.parse(filename, text);
  } catch (err) {
    const message = (err as Error).message.replace(/^parse config: /, '');
    throw new Error(`${filename} is not valid HCL: ${message}`);
  }
}

/** Where the configuration file sits inside an archive. */
export const sentinelConfigPath = (policiesPath: string): string =>
  policiesPath ? `${policiesPath}/${SENTINEL_CONFIG_FILE}` : SENTINEL_CONFIG_FILE;

/**
 * The policies a kind_a archive declares (its `sentinel.hcl` under `policiesPath`), or a string
 * saying why they cannot be known.
 */
export async function declaredArchivePolicies(
  archive: AsyncIterable<Buffer> | NodeJS.ReadableStream,
  policiesPath: string,
): Promise<SentinelPolicyBlock[] | string> {
  const path = sentinelConfigPath(policiesPath);
  let text: Buffer | undefined;
  try {
    text = await readArchiveFile(archive, path);
  } catch (err) {
    // Storage's answers are not facts about the archive: a missing object is, an outage is not.
    if (isAppError(err)) {
      if (err.kind === 'not_found') return 'its archive is gone';
      throw err;
    }
    return `its archive cannot be read: ${(err as Error).message}`;
  }
  if (!text) return `its archive has no ${path}`;
  try {
    return sentinelPolicies(await parseSentinelConfig(text.toString('utf8'), path));
  } catch (err) {
    return `${path}: ${(err as Error).message}`;
  }
}

export type { DeclaredPolicy };

/**
 * The policies a kind_b archive declares (`policies.hcl`, else `policies.json`, under
 * `policiesPath`), or a string saying why they cannot be known. `open` opens the archive again
 * for each file tried (archives are streamed, never held).
 */
export async function declaredOpaArchivePolicies(
  open: () => AsyncIterable<Buffer> | NodeJS.ReadableStream,
  policiesPath: string,
): Promise<OpaPolicyBlock[] | string> {
  for (const name of OPA_CONFIG_FILES) {
    const path = policiesPath ? `${policiesPath}/${name}` : name;
    let text: Buffer | undefined;
    try {
      text = await readArchiveFile(open(), path);
    } catch (err) {
      if (isAppError(err)) {
        if (err.kind === 'not_found') return 'its archive is gone';
        throw err;
      }
      return `its archive cannot be read: ${(err as Error).message}`;
    }
    if (!text) continue;
    try {
      const parsed = name.endsWith('.hcl')
        ? await parseSentinelConfig(text.toString('utf8'), path)
        : JSON.parse(text.toString('utf8'));
      return opaPolicies(parsed);
    } catch (err) {
      return `${path}: ${(err as Error).message}`;
    }
  }
  return `its archive has no ${OPA_CONFIG_FILES.join(' or ')} ${policiesPath ? `in ${policiesPath}` : 'at its root'}`;
}
