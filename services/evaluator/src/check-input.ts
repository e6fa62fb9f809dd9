import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { archiveDirectory, extractArchive } from '@policyhub/archive-reader';
import {
  type commonV1,
  declaredEnforcementLevel,
  evaluationEnforcementLevel,
  evaluationPolicyKind,
  type runsV1,
  timestampToIso,
} from '@policyhub/contracts';
import {
  type ArchiveDeclaration,
  isEnforcementLevel,
  type PreparedPolicySet,
  type RunFacts,
} from './engines/engine.js';

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
    let declaration: ArchiveDeclaration | undefined;
    if (set.archive) {
      // Which policies the archive declares was read once, by storage, at upload: a version from
      // before that has no declaration, and is not evaluated (nothing passes unevaluated).
      if (!set.declaration) throw new Error(`policy set ${set.name}: ${UNDECLARED_VERSION}`);
      declaration = declarationOf(set.name, set.declaration);
      // The configuration's directory is the layout root the upload was checked against.
      const policiesPath = archiveDirectory(set.declaration.root);
      if (policiesPath === undefined)
        throw new Error(
          `policy set ${set.name}: its archive root ${set.declaration.root} leaves the archive`,
        );
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
      declaration,
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

/** Why a versioned set without a recorded declaration is not evaluated (runs says the same). */
export const UNDECLARED_VERSION =
  'its current version was uploaded before PolicyHub recorded what archives declare; upload the version again';

/** The declaration as engines take it; a level no framework has is refused, not guessed. */
function declarationOf(setName: string, d: commonV1.ArchiveDeclaration__Output): ArchiveDeclaration {
  let sentinelBlocks: unknown = {};
  try {
    if (d.sentinelBlocksJson) sentinelBlocks = JSON.parse(d.sentinelBlocksJson);
  } catch (err) {
    throw new Error(
      `policy set ${setName}: its recorded configuration is not JSON: ${(err as Error).message}`,
    );
  }
  if (typeof sentinelBlocks !== 'object' || sentinelBlocks === null || Array.isArray(sentinelBlocks))
    throw new Error(`policy set ${setName}: its recorded configuration is not an object`);
  return {
    configPath: d.configPath,
    sentinelBlocks: sentinelBlocks as Record<string, unknown>,
    policies: d.policies.map((p) => {
      const level =
        p.enforcementLevel === 'DECLARED_ENFORCEMENT_LEVEL_UNSPECIFIED'
          ? undefined
          : declaredEnforcementLevel.toWord(p.enforcementLevel);
      if (!isEnforcementLevel(level))
        throw new Error(`policy set ${setName}: policy ${p.name} has no known enforcement level`);
      return {
        name: p.name,
        enforcementLevel: level,
        source: p.source ?? '',
        query: p.query ?? '',
        description: p.description ?? '',
      };
    }),
  };
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
