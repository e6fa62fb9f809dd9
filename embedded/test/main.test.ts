import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, waitFor } from '@policyhub/testing';
import { afterAll, describe, expect, it } from 'vitest';

/** `npm start` as a user runs it: its own process, its own process group (a terminal's job). */
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const cleanup: Array<() => unknown> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'policyhub-embedded-main-'));
  chmodSync(dir, 0o755);
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

interface Started {
  child: ChildProcess;
  output(): string;
  exit: Promise<number | null>;
}

function npmStart(env: Record<string, string>): Started {
  const child = spawn(
    process.execPath,
    ['--conditions=@policyhub/source', '--import', 'tsx', 'embedded/src/main.ts'],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        DATABASE_URL: '',
        KAFKA_BROKERS: '',
        REDIS_URL: '',
        OPS_PORT: '0',
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  cleanup.push(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  });
  return { child, output: () => out, exit };
}

async function occupy(port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  cleanup.push(() => new Promise((resolve) => server.close(resolve)));
  return server;
}

describe('npm start', () => {
  it('refuses a busy PORT in one line, exit 2, before a data directory is created', async () => {
    const port = await freePort();
    await occupy(port);
    const data = join(tempDir(), 'data');
    const run = npmStart({
      PORT: String(port),
      DATA_DIR: data,
      RUNS_GRPC_ADDR: `127.0.0.1:${await freePort()}`,
    });
    expect(await run.exit).toBe(2);
    expect(run.output().trim()).toBe(`PORT ${port} is in use; set PORT to a free port`);
    expect(existsSync(data)).toBe(false);
  });

  it('refuses a busy RUNS_GRPC_ADDR the same way', async () => {
    const runsPort = await freePort();
    await occupy(runsPort);
    const data = join(tempDir(), 'data');
    const run = npmStart({
      PORT: String(await freePort()),
      DATA_DIR: data,
      RUNS_GRPC_ADDR: `127.0.0.1:${runsPort}`,
    });
    expect(await run.exit).toBe(2);
    expect(run.output().trim()).toBe(
      `RUNS_GRPC_ADDR 127.0.0.1:${runsPort} is in use; set RUNS_GRPC_ADDR to a free address`,
    );
    expect(existsSync(data)).toBe(false);
  });

  it('stops quietly on Ctrl-C (SIGINT to the whole process group), Postgres included', {
    timeout: 120_000,
  }, async () => {
    const port = await freePort();
    const data = join(tempDir(), 'data');
    const run = npmStart({
      PORT: String(port),
      DATA_DIR: data,
      RUNS_GRPC_ADDR: `127.0.0.1:${await freePort()}`,
    });
    await waitFor(
      async () => {
        if (run.child.exitCode !== null) throw new Error(`npm start exited early:\n${run.output()}`);
        return (await fetch(`http://127.0.0.1:${port}/api/v2/ping`).catch(() => undefined))?.ok;
      },
      90_000,
      200,
    );
    const before = run.output();
    process.kill(-run.child.pid!, 'SIGINT'); // what a terminal does on Ctrl-C
    expect(await run.exit).toBe(0);
    // LOG_LEVEL=warn: nothing at all may be logged by a deliberate stop.
    expect(run.output().slice(before.length)).toBe('');
    expect(existsSync(join(data, 'postgres', 'postmaster.pid'))).toBe(false);
  });
});
