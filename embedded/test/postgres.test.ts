import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { freeLoopbackPort, PostgresCluster, postgresInstallation } from '@policyhub/local-postgres';
import { createLogger } from '@policyhub/telemetry';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { type EmbeddedPostgresHandle, startEmbeddedPostgres } from '../src/postgres.js';

const isRoot = process.getuid?.() === 0;
const cleanup: Array<() => unknown> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

/** A DATA_DIR in an open temporary directory (or, with `closed`, under a 0700 one). */
function dataDir(closed = false): string {
  const parent = mkdtempSync(join(tmpdir(), 'policyhub-embedded-pg-'));
  if (!closed) chmodSync(parent, 0o755);
  cleanup.push(() => rmSync(parent, { recursive: true, force: true }));
  return join(parent, 'data');
}

/** A logger whose lines the test can read. */
function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { logger: createLogger('test', 'info', stream), lines };
}

async function start(dir: string, logger = createLogger('test', 'silent')) {
  const handle = await startEmbeddedPostgres(dir, logger);
  cleanup.push(() => handle.stop());
  return handle;
}

/** The SQLSTATE (or errno code) a login as `postgres` with `password` gets; undefined if accepted. */
async function login(handle: EmbeddedPostgresHandle, password: string): Promise<string | undefined> {
  const url = new URL(handle.url);
  const client = new pg.Client({
    host: url.hostname,
    port: Number(url.port),
    user: 'postgres',
    password,
    database: 'policyhub',
  });
  try {
    await client.connect();
    await client.end();
    return undefined;
  } catch (err) {
    return (err as { code?: string }).code;
  }
}

const passwordOf = (dir: string) => readFileSync(join(dir, 'postgres-password'), 'utf8').trim();

describe('embedded Postgres credentials', () => {
  it('generates a password per data directory, refuses postgres/postgres, and reuses it after a restart', async () => {
    const dir = dataDir();
    const first = await start(dir);
    const password = passwordOf(dir);
    expect(password.length).toBeGreaterThanOrEqual(32);
    expect(statSync(join(dir, 'postgres-password')).mode & 0o777).toBe(0o600);
    expect(await login(first, 'postgres')).toBe('28P01'); // invalid_password
    expect(await login(first, password)).toBeUndefined();
    const client = new pg.Client({ connectionString: first.url });
    await client.connect();
    await client.query('CREATE TABLE kept (v int)');
    await client.query('INSERT INTO kept VALUES (42)');
    await client.end();
    await first.stop();

    const second = await start(dir);
    expect(passwordOf(dir)).toBe(password);
    expect(await login(second, 'postgres')).toBe('28P01');
    const again = new pg.Client({ connectionString: second.url });
    await again.connect();
    expect((await again.query('SELECT v FROM kept')).rows).toEqual([{ v: 42 }]);
    await again.end();
    await second.stop();

    // Another data directory gets another password.
    const other = dataDir();
    const third = await start(other);
    expect(passwordOf(other)).not.toBe(password);
    await third.stop();
  });

  it('moves a data directory created with the old default password to a generated one', async () => {
    const dir = dataDir();
    // What earlier versions left behind: a cluster in DATA_DIR/postgres, superuser postgres/postgres.
    const legacy = new PostgresCluster(postgresInstallation(), {
      dataDir: join(dir, 'postgres'),
      port: await freeLoopbackPort(),
      password: 'postgres',
    });
    await legacy.initialise();
    await legacy.start();
    const seed = new pg.Client({
      connectionString: `postgres://postgres:postgres@127.0.0.1:${legacy.options.port}/postgres`,
    });
    await seed.connect();
    await seed.query('CREATE DATABASE policyhub');
    await seed.end();
    await legacy.stop();

    const { logger, lines } = capturingLogger();
    const handle = await start(dir, logger);
    const password = passwordOf(dir);
    expect(await login(handle, 'postgres')).toBe('28P01');
    expect(await login(handle, password)).toBeUndefined();
    expect(lines.map((l) => l.msg)).toContain(
      'replaced the embedded Postgres default password with the one in DATA_DIR/postgres-password',
    );
    await handle.stop();

    // The next start needs no migration.
    const again = capturingLogger();
    const restarted = await start(dir, again.logger);
    expect(await login(restarted, password)).toBeUndefined();
    expect(again.lines.map((l) => l.msg)).not.toContain(
      'replaced the embedded Postgres default password with the one in DATA_DIR/postgres-password',
    );
    await restarted.stop();
  });
});

describe.skipIf(!isRoot)('embedded Postgres as root', () => {
  it('keeps the cluster where user postgres can reach it when DATA_DIR is under a closed directory, and says so', async () => {
    const dir = dataDir(true);
    const { logger, lines } = capturingLogger();
    const handle = await start(dir, logger);
    cleanup.push(() => {
      rmSync(handle.clusterDir, { recursive: true, force: true });
      rmSync(`${handle.clusterDir}.source`, { force: true });
    });
    expect(handle.clusterDir.startsWith('/var/lib/policyhub/clusters/')).toBe(true);
    const notice = lines.find((l) => l.cluster === handle.clusterDir);
    expect(notice).toMatchObject({ dataDir: dir });
    const client = new pg.Client({ connectionString: handle.url });
    await client.connect();
    await client.query('CREATE TABLE kept (v int)');
    await client.end();
    await handle.stop();

    const restarted = await start(dir);
    expect(restarted.clusterDir).toBe(handle.clusterDir);
    const again = new pg.Client({ connectionString: restarted.url });
    await again.connect();
    expect((await again.query('SELECT count(*)::int AS n FROM kept')).rows).toEqual([{ n: 0 }]);
    await again.end();
    await restarted.stop();
  });
});
