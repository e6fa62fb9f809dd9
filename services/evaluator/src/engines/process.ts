import { spawn } from 'node:child_process';

export interface ProcessRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Killed because the time limit passed. */
  timedOut: boolean;
  /** Killed because stdout grew past `maxOutputBytes`. */
  outputExceeded: boolean;
  /** Killed because the caller's signal aborted (the lease was lost). */
  aborted: boolean;
  stdout: string;
  /** The last `STDERR_TAIL_BYTES` of stderr. */
  stderr: string;
}

export interface ProcessOptions {
  timeoutMs: number;
  /** stdout beyond this kills the process (an engine's answer is bounded, its output too). */
  maxOutputBytes: number;
  cwd?: string | undefined;
  /** The whole environment of the process; default: the evaluator's. */
  env?: NodeJS.ProcessEnv | undefined;
  /** Written to stdin, then closed; without it stdin is empty. */
  stdin?: string | undefined;
  signal?: AbortSignal | undefined;
}

export const STDERR_TAIL_BYTES = 64 * 1024;

/**
 * Runs an engine's executable once, never through a shell. It is killed (SIGKILL) when the time
 * limit passes, when its stdout grows past the limit, or when `signal` aborts; the result says
 * which. Rejects only when the executable cannot be started.
 */
export function runProcess(
  file: string,
  args: readonly string[],
  options: ProcessOptions,
): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = Buffer.alloc(0);
    let why: 'timedOut' | 'outputExceeded' | 'aborted' | undefined;
    const kill = (reason: NonNullable<typeof why>) => {
      why ??= reason;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => kill('timedOut'), Math.max(1, options.timeoutMs));
    const onAbort = () => kill('aborted');
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > options.maxOutputBytes) kill('outputExceeded');
      else stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = Buffer.concat([stderr, chunk]);
      if (stderr.length > STDERR_TAIL_BYTES) stderr = stderr.subarray(stderr.length - STDERR_TAIL_BYTES);
    });
    // A process that exits without reading all of stdin is judged by its exit status, not EPIPE.
    child.stdin.on('error', () => {});
    child.once('error', (err) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      reject(new Error(`could not start ${file}: ${err.message}`));
    });
    child.once('close', (exitCode, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({
        exitCode,
        signal,
        timedOut: why === 'timedOut',
        outputExceeded: why === 'outputExceeded',
        aborted: why === 'aborted',
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: stderr.toString('utf8'),
      });
    });
    child.stdin.end(options.stdin ?? '');
  });
}

/** Why a process that did not answer normally stopped, in words for an error message. */
export function howItEnded(
  run: ProcessRun,
  what: string,
  limits: { timeoutMs: number; maxOutputBytes: number },
) {
  if (run.timedOut) return `${what} did not finish within ${limits.timeoutMs} ms`;
  if (run.outputExceeded) return `${what} printed more than ${limits.maxOutputBytes} bytes`;
  if (run.aborted) return `${what} was stopped: the lease on the check was lost`;
  if (run.signal) return `${what} was killed by ${run.signal}`;
  return `${what} exited with status ${run.exitCode}`;
}
