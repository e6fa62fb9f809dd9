import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningSystem, type SystemOptions, startSystem } from '@policyhub/embedded';
import { createTestDatabase, type TestDatabase } from '@policyhub/testing';
import { ApiClient } from './api.js';

export interface TestSystem {
  system: RunningSystem;
  /** Client authenticated as the bootstrap site admin. */
  admin: ApiClient;
  /** Client without a token. */
  anonymous: ApiClient;
  client(token: string): ApiClient;
  stop(): Promise<void>;
}

/**
 * The whole system in this process on a fresh database (DATABASE_URL's server, or an embedded
 * Postgres), reached only over HTTP on a loopback port, as a user would.
 */
export async function startTestSystem(
  options: Pick<SystemOptions, 'apiVocabulary' | 'uploadUrlTtlMs' | 'auditRetention' | 'allowedHosts'> = {},
): Promise<TestSystem> {
  const db: TestDatabase = await createTestDatabase('ph_e2e');
  const dataDir = mkdtempSync(join(tmpdir(), 'policyhub-e2e-'));
  const system = await startSystem({
    port: 0,
    validateResponses: true,
    dataDir,
    databaseUrl: db.url,
    logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...options,
  });
  const client = (token: string) => new ApiClient(system.baseUrl, token);
  return {
    system,
    admin: client(system.siteAdminToken),
    anonymous: new ApiClient(system.baseUrl, undefined),
    client,
    async stop() {
      await system.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
