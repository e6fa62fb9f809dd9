import { spawnTs, stopChild, waitForLine } from './child.js';

/** Starts the baseline server (bench/src/baseline-server.ts) in its own process. */
export async function startBaseline(databaseUrl: string, sql: string) {
  const child = spawnTs('bench/src/baseline-server.ts', { DATABASE_URL: databaseUrl, BASELINE_SQL: sql });
  const port = await waitForLine(child, /baseline listening on (\d+)/);
  return {
    url: (id: string) => `http://127.0.0.1:${port}/row/${id}`,
    close: () => stopChild(child),
  };
}
