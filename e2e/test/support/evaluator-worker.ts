import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const FORBIDDEN_TYPES_ENGINE = fileURLToPath(
  new URL('./engines/forbidden-resource-types.mjs', import.meta.url),
);

export interface WorkerProcess {
  child: ChildProcess;
  /** What the worker logged (for failure messages). */
  output(): string;
  /** SIGTERM: the worker finishes the check in hand, then exits. */
  stop(): Promise<void>;
  /** SIGKILL to the worker and its engine (its own process group): a crashed evaluator. */
  kill(): Promise<void>;
}

/** Starts `npm run evaluator`'s entry point as its own process, as an operator would. */
export function startEvaluatorWorker(env: Record<string, string>): WorkerProcess {
  const child = spawn(
    process.execPath,
    ['--conditions=@policyhub/source', '--import', 'tsx', 'services/evaluator/src/main.ts'],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', EVALUATOR_POLL_INTERVAL_MS: '50', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  let log = '';
  child.stdout!.on('data', (c: Buffer) => (log += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (log += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  return {
    child,
    output: () => log,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      signalGroup('SIGKILL');
      await exited;
    },
  };
}
