import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type SystemOptions, startSystem } from '@policyhub/embedded';
import { createTestDatabase } from '@policyhub/testing';
import { ApiClient } from './api.js';
import type { TestSystem } from './system.js';

export interface SecurityTestSystem extends TestSystem {
  /** Every log line written so far, when started with `captureLogs`. */
  logLines(): string[];
}

/**
 * Like startTestSystem (the whole system on a fresh database, reached over HTTP), plus what the
 * security suites need: every service's log lines captured at any level, environment settings
 * (upload limits) applied for this system only, and optionally the built-in evaluator.
 */
export async function startSecurityTestSystem(
  options: {
    captureLogs?: boolean;
    logLevel?: string;
    env?: Record<string, string>;
    /** The built-in evaluator (its log lines are captured with the services'). */
    evaluator?: SystemOptions['evaluator'];
  } = {},
): Promise<SecurityTestSystem> {
  const previousEnv = Object.fromEntries(Object.keys(options.env ?? {}).map((k) => [k, process.env[k]]));
  Object.assign(process.env, options.env ?? {});
  const lines: string[] = [];
  const capture = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      callback();
    },
  });
  const db = await createTestDatabase('ph_sec');
  const dataDir = mkdtempSync(join(tmpdir(), 'policyhub-sec-'));
  const systemOptions: SystemOptions = {
    port: 0,
    validateResponses: true,
    dataDir,
    databaseUrl: db.url,
    logLevel: options.logLevel ?? (options.captureLogs ? 'trace' : (process.env.TEST_LOG_LEVEL ?? 'silent')),
    ...(options.captureLogs ? { logDestination: capture } : {}),
    ...(options.evaluator ? { evaluator: options.evaluator } : {}),
  };
  const system = await startSystem(systemOptions);
  const client = (token: string) => new ApiClient(system.baseUrl, token);
  return {
    system,
    admin: client(system.siteAdminToken),
    anonymous: new ApiClient(system.baseUrl, undefined),
    client,
    logLines: () => [...lines],
    async stop() {
      await system.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
      for (const [k, v] of Object.entries(previousEnv)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    },
  };
}
