import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@policyhub/testing';
import { round } from '../measure.js';

const repoRoot = new URL('../../../', import.meta.url).pathname;

/** Time from spawning `npm start`'s command until GET /api/v2/ping answers. */
async function timeStart(dataDir: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['--conditions=@policyhub/source', '--import', 'tsx', 'embedded/src/main.ts'],
    {
      cwd: repoRoot,
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        PORT: String(port),
        OPS_PORT: '0',
        RUNS_GRPC_ADDR: '127.0.0.1:0', // not the fixed default: other systems may run beside it
        LOG_LEVEL: 'warn',
        DATABASE_URL: '',
      },
      stdio: 'ignore',
    },
  );
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error('npm start exited');
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/v2/ping`);
        if (res.status < 300) return round(performance.now() - started);
      } catch {}
      await new Promise((r) => setTimeout(r, 20));
      if (performance.now() - started > 120_000) throw new Error('start took over 2 minutes');
    }
  } finally {
    child.kill('SIGINT');
    await new Promise((r) => child.once('exit', r));
  }
}

/** Cold start (fresh DATA_DIR: initdb + migrations) and warm start (same DATA_DIR again). */
export async function startupScenario() {
  const dataDir = mkdtempSync(join(tmpdir(), 'policyhub-bench-start-'));
  try {
    const cold = await timeStart(dataDir);
    const warm = await timeStart(dataDir);
    return { coldMs: cold, warmMs: warm };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
