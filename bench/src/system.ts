import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningSystem, startSystem } from '@policyhub/embedded';
import { createTestDatabase } from '@policyhub/testing';

export interface BenchSystem {
  system: RunningSystem;
  /** Headers of the site admin (also owner of what the bench creates). */
  auth: Record<string, string>;
  api(method: string, path: string, body?: unknown): Promise<any>;
  stop(): Promise<void>;
}

/** The whole system in embedded mode on a fresh database, rate limits off, quiet logs. */
export async function startBenchSystem(kafkaBrokers?: string[]): Promise<BenchSystem> {
  const db = await createTestDatabase('ph_bench');
  const dataDir = mkdtempSync(join(tmpdir(), 'policyhub-bench-'));
  const system = await startSystem({ port: 0, dataDir, databaseUrl: db.url, logLevel: 'warn', kafkaBrokers });
  const auth = { authorization: `Bearer ${system.siteAdminToken}` };
  return {
    system,
    auth,
    async api(method, path, body) {
      const res = await fetch(`${system.baseUrl}/api/v2${path}`, {
        method,
        headers: { ...auth, 'content-type': 'application/vnd.api+json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${text}`);
      return text ? JSON.parse(text) : undefined;
    },
    async stop() {
      await system.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
