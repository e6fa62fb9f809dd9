import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

export const repoRoot = new URL('../../', import.meta.url).pathname;

/** The Node flags of `npm start` (package.json) and of the images, telemetry included. */
export const START_FLAGS = [
  '--conditions=@policyhub/source',
  '--import',
  'tsx',
  '--import',
  '@policyhub/telemetry/register',
];

/** Spawns a TypeScript entry point of this repo as its own Node process (loopback only). */
export function spawnTs(
  entry: string,
  env: Record<string, string | undefined>,
  flags: readonly string[] = ['--conditions=@policyhub/source', '--import', 'tsx'],
): ChildProcess {
  // BENCH_CPU_PROF_DIR: every spawned server writes a V8 CPU profile there when it exits.
  const dir = process.env.BENCH_CPU_PROF_DIR;
  const prof = dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
  return spawn(process.execPath, [...prof, ...flags, entry], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Resolves with the first stdout line matching `pattern` (its first group), or fails on exit. */
export function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}`)), timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const match = pattern.exec(buffer);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] ?? match[0]);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`process exited with ${code}: ${stderr.slice(-2000)}`));
    });
  });
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGINT');
  await exited;
}

/** Resident set size of a process in bytes (Linux /proc). */
export function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.replace(/\D+/g, '') ?? 0) * 1024;
}
