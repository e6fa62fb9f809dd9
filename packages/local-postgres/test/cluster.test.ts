import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  bundledPostgres,
  clusterPlacement,
  freeLoopbackPort,
  PostgresCluster,
  postgresInstallation,
  postmasterPid,
} from '../src/index.js';

const isRoot = process.getuid?.() === 0;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function waitUntil(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  for (const until = Date.now() + timeoutMs; Date.now() < until; ) {
    if (condition()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`not within ${timeoutMs} ms`);
}
const cleanup: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

/** A temporary directory the `postgres` user can enter (mkdtemp makes them 0700). */
function openTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  chmodSync(dir, 0o755);
  return dir;
}

async function connect(port: number, password: string): Promise<pg.Client> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  await client.connect();
  return client;
}

async function refusal(port: number, password: string): Promise<string | undefined> {
  try {
    const client = await connect(port, password);
    await client.end();
    return undefined;
  } catch (err) {
    return (err as { code?: string }).code;
  }
}

async function startCluster(dataDir: string, password: string, installation = postgresInstallation()) {
  const cluster = new PostgresCluster(installation, { dataDir, port: await freeLoopbackPort(), password });
  cleanup.push(() => cluster.stop());
  if (!cluster.initialised) await cluster.initialise();
  await cluster.start();
  return cluster;
}

describe('a local Postgres cluster', () => {
  it('accepts only its own password, keeps data across a restart, and stops', async () => {
    const dir = openTempDir('policyhub-lp-');
    const password = randomBytes(18).toString('base64url');
    const cluster = await startCluster(join(dir, 'data'), password);
    const port = cluster.options.port;

    expect(await refusal(port, 'postgres')).toBe('28P01'); // invalid_password
    expect(await refusal(port, password)).toBeUndefined();
    const client = await connect(port, password);
    await client.query('CREATE TABLE kept (v text)');
    await client.query(`INSERT INTO kept VALUES ('ünïcode')`);
    const { rows } = await client.query<{ encoding: string }>(
      `SELECT pg_encoding_to_char(encoding) AS encoding FROM pg_database WHERE datname = 'postgres'`,
    );
    expect(rows[0]!.encoding).toBe('UTF8');
    await client.end();

    await cluster.stop();
    expect(postmasterPid(cluster.dataDir)).toBeUndefined();
    expect(await refusal(port, password)).toBe('ECONNREFUSED');

    await cluster.start();
    const again = await connect(port, password);
    expect((await again.query('SELECT v FROM kept')).rows).toEqual([{ v: 'ünïcode' }]);
    await again.end();
    await cluster.stop();
  });

  it('does not hand the application environment to the server', async () => {
    process.env.POLICYHUB_TEST_SECRET = 'must-not-leak';
    try {
      const dir = openTempDir('policyhub-lp-env-');
      const cluster = await startCluster(join(dir, 'data'), 'pw-env-test');
      const pid = postmasterPid(cluster.dataDir)!;
      expect(readFileSync(`/proc/${pid}/environ`, 'utf8')).not.toContain('must-not-leak');
      await cluster.stop();
    } finally {
      delete process.env.POLICYHUB_TEST_SECRET;
    }
  });
});

describe('a temporary cluster', () => {
  it('stops and is deleted when the process that started it is killed (SIGKILL)', {
    timeout: 120_000,
  }, async () => {
    const script = `
      import { mkdtempSync } from 'node:fs';
      import { tmpdir } from 'node:os';
      import { join } from 'node:path';
      import { freeLoopbackPort, PostgresCluster, postgresInstallation, postmasterPid } from '@policyhub/local-postgres';
      const cluster = new PostgresCluster(postgresInstallation(), {
        dataDir: mkdtempSync(join(tmpdir(), 'policyhub-lp-orphan-')),
        port: await freeLoopbackPort(),
        password: 'pw-orphan',
        temporary: true,
      });
      await cluster.initialise();
      await cluster.start();
      console.log(JSON.stringify({ dataDir: cluster.dataDir, pid: postmasterPid(cluster.dataDir) }));
      setInterval(() => {}, 1000);
    `;
    const child = spawn(
      process.execPath,
      ['--conditions=@policyhub/source', '--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: dirname(fileURLToPath(import.meta.url)), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const started = await new Promise<{ dataDir: string; pid: number }>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('\n')) resolve(JSON.parse(out));
      });
      child.once('exit', (code) =>
        reject(new Error(`the starter exited (${code}) before the server was up`)),
      );
    });
    cleanup.push(() => rmSync(started.dataDir, { recursive: true, force: true }));
    expect(alive(started.pid)).toBe(true);
    child.kill('SIGKILL');
    await waitUntil(() => !alive(started.pid) && !existsSync(started.dataDir));
  });
});

describe.skipIf(!isRoot)('as root, under directories user postgres cannot enter', () => {
  it('copies the binaries to a reachable cache once, verified, and runs the server from there', async () => {
    // node_modules under a 0700 directory, as in a clone under /root or `mktemp -d`.
    const closed = mkdtempSync(join(tmpdir(), 'policyhub-lp-closed-'));
    cleanup.push(() => rmSync(closed, { recursive: true, force: true }));
    const bundled = bundledPostgres();
    const nativeDir = join(closed, 'pkg', 'native');
    cpSync(dirname(bundled.nativeDir), join(closed, 'pkg'), { recursive: true, verbatimSymlinks: true });
    const cacheDir = join(openTempDir('policyhub-lp-cache-'), 'state');

    const installation = postgresInstallation({ nativeDir, cacheDir });
    expect(installation).toMatchObject({ copied: true, version: bundled.version });
    expect(installation.binDir.startsWith(cacheDir)).toBe(true);
    const copyDir = dirname(installation.binDir);
    expect(statSync(copyDir).mode & 0o777).toBe(0o755);
    const manifest = statSync(join(copyDir, '.policyhub-manifest.json')).mtimeMs;

    const reused = postgresInstallation({ nativeDir, cacheDir });
    expect(reused.binDir).toBe(installation.binDir);
    expect(statSync(join(copyDir, '.policyhub-manifest.json')).mtimeMs).toBe(manifest);

    // A damaged copy (a file removed) is replaced, not used.
    rmSync(join(copyDir, 'bin', 'initdb'));
    const repaired = postgresInstallation({ nativeDir, cacheDir });
    expect(existsSync(join(repaired.binDir, 'initdb'))).toBe(true);

    const dataDir = join(openTempDir('policyhub-lp-data-'), 'data');
    const cluster = await startCluster(dataDir, 'pw-copied', repaired);
    expect(await refusal(cluster.options.port, 'pw-copied')).toBeUndefined();
    await cluster.stop();
  });

  it('places a cluster whose directory is under a closed parent in the state directory', async () => {
    const closed = mkdtempSync(join(tmpdir(), 'policyhub-lp-closed-data-'));
    cleanup.push(() => rmSync(closed, { recursive: true, force: true }));
    const stateDir = join(openTempDir('policyhub-lp-state-'), 'state');
    const installation = postgresInstallation();

    const open = join(openTempDir('policyhub-lp-open-'), 'postgres');
    expect(clusterPlacement(open, installation, stateDir)).toEqual({ dataDir: open, relocated: false });

    const requested = join(closed, '.data', 'postgres');
    const placement = clusterPlacement(requested, installation, stateDir);
    expect(placement.relocated).toBe(true);
    expect(placement.dataDir.startsWith(join(stateDir, 'clusters'))).toBe(true);
    expect(readFileSync(`${placement.dataDir}.source`, 'utf8').trim()).toBe(requested);

    const cluster = await startCluster(placement.dataDir, 'pw-relocated', installation);
    await cluster.stop();
    // The same requested directory finds the same cluster again.
    expect(clusterPlacement(requested, installation, stateDir)).toEqual(placement);
  });
});
