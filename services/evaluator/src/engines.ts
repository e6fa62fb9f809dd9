import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** Where the official Sentinel CLI is published (docs/policy-evaluation.md explains the install). */
export const SENTINEL_DOWNLOADS = 'https://releases.hashicorp.com/sentinel/';

export interface SentinelEngine {
  path: string;
  /** What `sentinel version` printed (first line), or '' when it said nothing useful. */
  version: string;
}

/**
 * The engines a worker can use: a generic engine command (EVALUATOR_COMMAND, for any kind), and
 * the Sentinel CLI for kind_a. `sentinelProblem` says why Sentinel is missing.
 */
export interface EngineSetup {
  command: string[] | undefined;
  sentinel: SentinelEngine | undefined;
  sentinelProblem: string | undefined;
}

const isExecutableFile = (path: string): boolean => {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** SENTINEL_BIN when set (it must be an executable file), else `sentinel` on PATH. */
export function findSentinel(
  env: Record<string, string | undefined>,
): { path: string } | { problem: string } {
  const configured = env.SENTINEL_BIN?.trim();
  if (configured) {
    if (!isAbsolute(configured)) return { problem: `SENTINEL_BIN=${configured} is not an absolute path` };
    return isExecutableFile(configured)
      ? { path: configured }
      : { problem: `SENTINEL_BIN=${configured} is not an executable file` };
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'sentinel');
    if (isExecutableFile(candidate)) return { path: candidate };
  }
  return { problem: 'SENTINEL_BIN is not set and there is no `sentinel` executable on PATH' };
}

/** The first line of `sentinel version` (a broken binary is reported as the problem). */
export function sentinelVersion(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(path, ['version'], { timeout: 10_000, maxBuffer: 64 * 1024 }, (err, stdout) => {
      if (err) return reject(new Error(`${path} version failed: ${err.message}`));
      resolve(stdout.trim().split('\n')[0] ?? '');
    });
  });
}

/** Finds the engines once, at start (a worker is restarted to pick up a new install). */
export async function detectEngines(
  env: Record<string, string | undefined>,
  command: string[] | undefined,
): Promise<EngineSetup> {
  const found = findSentinel(env);
  if ('problem' in found) return { command, sentinel: undefined, sentinelProblem: found.problem };
  try {
    return {
      command,
      sentinel: { path: found.path, version: await sentinelVersion(found.path) },
      sentinelProblem: undefined,
    };
  } catch (err) {
    return { command, sentinel: undefined, sentinelProblem: (err as Error).message };
  }
}

/** One line per kind for banners and logs. */
export function describeEngines(setup: EngineSetup): string[] {
  if (setup.command) {
    return [`every kind: engine command ${setup.command[0]} (EVALUATOR_COMMAND)`];
  }
  return [
    setup.sentinel
      ? `kind_a: Sentinel CLI ${setup.sentinel.path}${setup.sentinel.version ? ` (${setup.sentinel.version})` : ''}`
      : `kind_a: no engine (${setup.sentinelProblem}); checks end errored until one is installed`,
    'kind_b: no engine (set EVALUATOR_COMMAND to an OPA wrapper); checks with kind_b sets end errored',
  ];
}

/** The explanation a check gets when no engine can evaluate one of its kinds. */
export function missingEngineMessage(kind: string, setup: EngineSetup): string {
  if (kind === 'kind_a') {
    return (
      `no policy engine for kind_a (Sentinel) policy sets: the Sentinel CLI was not found (${setup.sentinelProblem}). ` +
      `Install it: download the official release for your platform from ${SENTINEL_DOWNLOADS}, check its SHA256SUMS, ` +
      'unzip the `sentinel` binary into a directory on PATH (or set SENTINEL_BIN to its absolute path), and restart the ' +
      'evaluator; or set EVALUATOR_COMMAND to an engine of your own (docs/policy-evaluation.md).'
    );
  }
  const name = kind === 'kind_b' ? 'kind_b (OPA)' : kind;
  return (
    `no policy engine for ${name} policy sets: PolicyHub has no built-in adapter for them. ` +
    'Set EVALUATOR_COMMAND to an engine command that evaluates them (the engine contract in docs/evaluator.md) ' +
    'and restart the evaluator.'
  );
}
