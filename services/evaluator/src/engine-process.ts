import { spawn } from 'node:child_process';

export interface EngineRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  /** The last part of stderr (for the error report). */
  stderr: string;
}

const MAX_STDOUT_BYTES = 16 * 1024 * 1024;
const STDERR_TAIL_BYTES = 64 * 1024;

/**
 * Runs the engine once: the request on stdin, its answer on stdout. Killed (SIGKILL) after the
 * timeout, when its output grows past 16 MiB, or when `signal` aborts (the lease was lost).
 */
export function runEngine(
  command: readonly string[],
  stdin: string,
  options: { timeoutMs: number; signal?: AbortSignal; cwd?: string },
): Promise<EngineRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { stdio: ['pipe', 'pipe', 'pipe'], cwd: options.cwd });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = Buffer.alloc(0);
    let timedOut = false;
    const kill = () => child.kill('SIGKILL');
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    options.signal?.addEventListener('abort', kill, { once: true });

    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > MAX_STDOUT_BYTES) kill();
      else stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = Buffer.concat([stderr, chunk]);
      if (stderr.length > STDERR_TAIL_BYTES) stderr = stderr.subarray(stderr.length - STDERR_TAIL_BYTES);
    });
    // An engine that exits without reading all of stdin is judged by its exit status, not EPIPE.
    child.stdin.on('error', () => {});
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`could not start the engine ${command[0]}: ${err.message}`));
    });
    child.once('close', (exitCode, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', kill);
      resolve({
        exitCode,
        signal,
        timedOut,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: stderr.toString('utf8'),
      });
    });
    child.stdin.end(stdin);
  });
}
