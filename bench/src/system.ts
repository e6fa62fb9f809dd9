import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, freePort } from '@policyhub/testing';
import { START_FLAGS, spawnTs, stopChild, waitForLine } from './child.js';

export interface BenchSystem {
  /** `embedded` (`npm start`) or `distributed` (five processes, real gRPC, Kafka). */
  mode: 'embedded' | 'distributed';
  baseUrl: string;
  databaseUrl: string;
  /** Where the object store keeps files (the filesystem store in both modes here). */
  dataDir: string;
  /** Every server process of the system (its CPU time is charged to the requests). */
  pids(): number[];
  /** The processes that hold the gateway and storage (upload memory). */
  uploadPids(): number[];
  /** Headers of an ordinary user who creates (and so owns) every organization the bench uses. */
  auth: Record<string, string>;
  /** Headers of the site admin (admin endpoints). */
  adminAuth: Record<string, string>;
  api(method: string, path: string, body?: unknown): Promise<any>;
  stop(): Promise<void>;
}

/** JSON:API calls as a given caller; a non-2xx answer throws. */
export function apiCaller(baseUrl: string) {
  return async (headers: Record<string, string>, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${baseUrl}/api/v2${path}`, {
      method,
      headers: { ...headers, 'content-type': 'application/vnd.api+json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
}

/** Creates the bench's ordinary user and returns its token's headers. */
export async function benchUser(baseUrl: string, adminAuth: Record<string, string>) {
  const call = apiCaller(baseUrl);
  const user = await call(adminAuth, 'POST', '/admin/users', {
    data: { type: 'users', attributes: { username: 'bench', email: 'bench@example.com' } },
  });
  const minted = await call(adminAuth, 'POST', `/users/${user.data.id}/authentication-tokens`);
  return { authorization: `Bearer ${minted.data.attributes.token}` };
}

/**
 * The system exactly as `npm start` runs it (same Node flags), in its own process so the load
 * generator does not share its event loop, on a fresh database; rate limits off, quiet logs;
 * `env` adds or overrides variables (a scenario comparing two configurations).
 */
export async function startEmbeddedSystem(env: Record<string, string> = {}): Promise<BenchSystem> {
  const db = await createTestDatabase('ph_bench');
  const dataDir = mkdtempSync(join(tmpdir(), 'policyhub-bench-'));
  const port = await freePort();
  const child = spawnTs(
    'embedded/src/main.ts',
    {
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      PORT: String(port),
      RUNS_GRPC_ADDR: '127.0.0.1:0', // not the fixed default: the baseline may run beside it
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_SECOND: '0',
      AUTH_FAILURE_LIMIT: '0',
      // A free port for the ops listener (default 9464), so a bench never collides with a running PolicyHub.
      OPS_PORT: '0',
      KAFKA_BROKERS: '',
      REDIS_URL: '',
      ...env,
    },
    START_FLAGS,
  );
  try {
    const token = await waitForLine(child, /site-admin token: *(\S+)/);
    const baseUrl = `http://127.0.0.1:${port}`;
    const adminAuth = { authorization: `Bearer ${token}` };
    const auth = await benchUser(baseUrl, adminAuth);
    const call = apiCaller(baseUrl);
    return {
      mode: 'embedded',
      baseUrl,
      databaseUrl: db.url,
      dataDir,
      pids: () => [child.pid!],
      uploadPids: () => [child.pid!],
      auth,
      adminAuth,
      api: (method, path, body) => call(auth, method, path, body),
      async stop() {
        await stopChild(child);
        await db.drop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await stopChild(child);
    await db.drop();
    throw err;
  }
}
