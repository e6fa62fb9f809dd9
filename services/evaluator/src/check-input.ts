import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { archiveDirectory, extractArchive } from '@policyhub/archive-reader';
import {
  evaluationEnforcementLevel,
  evaluationPolicyKind,
  type runsV1,
  timestampToIso,
} from '@policyhub/contracts';
import type { PreparedPolicySet, RunFacts } from './engines/engine.js';

type Reference = runsV1.ObjectReference__Output;
type CheckInput = runsV1.GetPolicyCheckInputResponse__Output;

/** A check's input as engines take it: the plan and archives are files of the check's directory. */
export interface PreparedCheck {
  planFile: string;
  run: RunFacts;
  sets: PreparedPolicySet[];
}

/**
 * The run and the sets as the protocol carries them, in the engines' terms. This is the one place
 * that knows both: fields the protocol gains (a kind_b policy's query, a set's
 * policy-tool-version, the workspace name, is_destroy) are mapped here.
 */
export function runFacts(input: CheckInput): RunFacts {
  return {
    id: input.runId,
    createdAt: timestampToIso(input.run?.createdAt) ?? '',
    message: input.run?.message ?? '',
    speculative: input.run?.planOnly ?? false,
    organization: { name: input.organization },
    workspace: { id: input.workspaceId, name: input.run?.workspaceName ?? undefined },
    isDestroy: input.run?.isDestroy ?? undefined,
  };
}

/** The kind word of each set of the input (kind_a, kind_b). */
export const kindsOf = (input: CheckInput): string[] => [
  ...new Set(input.policySets.map((s) => evaluationPolicyKind.toWord(s.kind))),
];

/**
 * Streams the plan and every archive from runs (`read`) into `dir`, each checked against its size
 * and SHA-256, and extracts the archives (paths checked to stay inside). Throws saying what is
 * wrong; a lost lease surfaces as the read's own error.
 */
export async function prepareCheck(
  input: CheckInput,
  read: (key: string) => AsyncIterable<{ data: Buffer }>,
  dir: string,
): Promise<PreparedCheck> {
  if (!input.plan) throw new Error('the input names no plan');
  const planFile = join(dir, 'plan.json');
  await downloadObject(read(input.plan.key), input.plan, planFile);
  const sets: PreparedPolicySet[] = [];
  for (const [i, set] of input.policySets.entries()) {
    let archive: PreparedPolicySet['archive'];
    if (set.archive) {
      const policiesPath = archiveDirectory(set.policiesPath);
      if (policiesPath === undefined)
        throw new Error(`policy set ${set.name}: policies-path ${set.policiesPath} leaves the archive`);
      archive = { file: join(dir, `archive-${i}.tar.gz`), dir: join(dir, `archive-${i}`), policiesPath };
      await downloadObject(read(set.archive.key), set.archive, archive.file);
      try {
        await extractArchive(createReadStream(archive.file), archive.dir);
      } catch (err) {
        throw new Error(`policy set ${set.name}: ${(err as Error).message}`);
      }
    }
    sets.push({
      id: set.id,
      name: set.name,
      kind: evaluationPolicyKind.toWord(set.kind),
      parameters: { ...set.parameters },
      versionId: set.versionId ?? undefined,
      toolVersion: set.policyToolVersion ?? undefined,
      archive,
      policies: set.policies.map((p) => ({
        id: p.id,
        name: p.name,
        enforcementLevel: evaluationEnforcementLevel.toWord(p.enforcementLevel),
        // The protocol leaves `code` unset for a policy without source; engines get ''.
        code: p.code ?? '',
        query: p.query ?? undefined,
      })),
    });
  }
  return { planFile, run: runFacts(input), sets };
}

/**
 * Copies one object of a check's input (read through runs' ReadPolicyCheckObject stream) to a
 * file (mode 0600, never an existing one), checking that it is exactly the size and SHA-256 the
 * input named: a truncated or altered plan must not be evaluated.
 */
export async function downloadObject(
  chunks: AsyncIterable<{ data: Buffer }>,
  reference: Reference,
  file: string,
): Promise<void> {
  const expectedSize = reference.sizeBytes;
  const hash = createHash('sha256');
  let size = 0;
  async function* verified() {
    for await (const chunk of chunks) {
      size += chunk.data.length;
      if (size > expectedSize)
        throw new Error(`${reference.key} is larger than the ${expectedSize} bytes announced`);
      hash.update(chunk.data);
      yield chunk.data;
    }
  }
  await pipeline(verified, createWriteStream(file, { mode: 0o600, flags: 'wx' }));
  if (size !== expectedSize) throw new Error(`${reference.key} ended after ${size} of ${expectedSize} bytes`);
  const sha256 = hash.digest('hex');
  if (reference.sha256 && sha256 !== reference.sha256.toLowerCase()) {
    throw new Error(`${reference.key} does not match its SHA-256 (${sha256} instead of ${reference.sha256})`);
  }
}
