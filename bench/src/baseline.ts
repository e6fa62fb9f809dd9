import { spawnTs, stopChild, waitForLine } from './child.js';

export interface Baseline {
  pid: number;
  /** GET: one primary-key read of BASELINE_SQL. */
  rowUrl(id: string): string;
  /** PUT: the bytes to a fsynced file, then one committed row. */
  uploadUrl(id: string): string;
  close(): Promise<void>;
}

/** Starts the baseline server (bench/src/baseline-server.ts) in its own process. */
export async function startBaseline(databaseUrl: string, sql: string, dir = ''): Promise<Baseline> {
  const child = spawnTs('bench/src/baseline-server.ts', {
    DATABASE_URL: databaseUrl,
    BASELINE_SQL: sql,
    BASELINE_DIR: dir,
  });
  const port = await waitForLine(child, /baseline listening on (\d+)/);
  return {
    pid: child.pid!,
    rowUrl: (id) => `http://127.0.0.1:${port}/row/${id}`,
    uploadUrl: (id) => `http://127.0.0.1:${port}/upload/${id}`,
    close: () => stopChild(child),
  };
}
