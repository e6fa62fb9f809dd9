import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, freePort } from '@policyhub/testing';
import { spawnTs, stopChild, waitForLine } from './child.js';

export interface BenchSystem {
  baseUrl: string;
  databaseUrl: string;
  /** pid of the `npm start` process (gateway and every service in embedded mode). */
  pid: number;
  /** Headers of an ordinary user who creates (and so owns) every organization the bench uses. */
  auth: Record<string, string>;
  /** Headers of the site admin (admin endpoints). */
  adminAuth: Record<string, string>;
  api(method: string, path: string, body?: unknown): Promise<any>;
  stop(): Promise<void>;
}

/**
 * The system exactly as `npm start` runs it, in its own process (so the load generator does not
 * share its event loop), on a fresh database; rate limits off, quiet logs.
 */
export async function startBenchSystem(kafkaBrokers?: string[]): Promise<BenchSystem> {
  const db = await createTestDatabase('ph_bench');
  const dataDir = mkdtempSync(join(tmpdir(), 'policyhub-bench-'));
  const port = await freePort();
  const child = spawnTs('embedded/src/main.ts', {
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    PORT: String(port),
    RUNS_GRPC_ADDR: '127.0.0.1:0', // not the fixed default: the baseline may run beside it
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_SECOND: '0',
    // A free port for the ops listener (default 9464), so a bench never collides with a running PolicyHub.
    OPS_PORT: '0',
    KAFKA_BROKERS: kafkaBrokers?.join(','),
    // The bench's broker is librdkafka's mock cluster, which has no idempotent producer.
    KAFKA_IDEMPOTENT: kafkaBrokers ? 'false' : undefined,
    REDIS_URL: '',
  });
  const token = await waitForLine(child, /site-admin token: *(\S+)/);
  const baseUrl = `http://127.0.0.1:${port}`;
  const adminAuth = { authorization: `Bearer ${token}` };
  const call = async (headers: Record<string, string>, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${baseUrl}/api/v2${path}`, {
      method,
      headers: { ...headers, 'content-type': 'application/vnd.api+json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  const user = await call(adminAuth, 'POST', '/admin/users', {
    data: { type: 'users', attributes: { username: 'bench', email: 'bench@example.com' } },
  });
  const minted = await call(adminAuth, 'POST', `/users/${user.data.id}/authentication-tokens`);
  const auth = { authorization: `Bearer ${minted.data.attributes.token}` };
  return {
    baseUrl,
    databaseUrl: db.url,
    pid: child.pid!,
    auth,
    adminAuth,
    api: (method, path, body) => call(auth, method, path, body),
    async stop() {
      await stopChild(child);
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
