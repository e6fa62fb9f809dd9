import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { canEnter, type PostgresInstallation, ROOT_STATE_DIR } from './installation.js';

export interface ClusterPlacement {
  /** Where the cluster's files live. */
  dataDir: string;
  /** True when that is not the requested directory (see clusterPlacement). */
  relocated: boolean;
}

/**
 * Where a cluster meant for `requested` can live. Normally `requested` itself. As root the
 * server runs as user `postgres`, which cannot enter a directory under a closed parent (a 0700
 * home, `mktemp -d`); such a cluster lives in `<stateDir>/clusters/<key>` instead, `key` being
 * derived from the requested path (so the same DATA_DIR finds its cluster again), with a
 * `<key>.source` file naming the requested path for operators. Once a cluster exists in either
 * place it stays there.
 */
export function clusterPlacement(
  requested: string,
  installation: PostgresInstallation,
  stateDir = ROOT_STATE_DIR,
): ClusterPlacement {
  const wanted = resolve(requested);
  if (!installation.user) return { dataDir: wanted, relocated: false };
  const key = createHash('sha256').update(wanted).digest('hex').slice(0, 16);
  const clusters = join(stateDir, 'clusters');
  const relocatedDir = join(clusters, key);
  if (existsSync(join(relocatedDir, 'PG_VERSION'))) return { dataDir: relocatedDir, relocated: true };
  if (canEnter(dirname(wanted), installation.user)) return { dataDir: wanted, relocated: false };
  if (existsSync(join(wanted, 'PG_VERSION'))) {
    throw new Error(
      `the Postgres cluster in ${wanted} cannot be reached by user postgres (a parent directory is closed); ` +
        'open the parent directories to it or move the directory',
    );
  }
  mkdirSync(clusters, { recursive: true, mode: 0o755 });
  writeFileSync(join(clusters, `${key}.source`), `${wanted}\n`, { mode: 0o644 });
  return { dataDir: relocatedDir, relocated: true };
}
