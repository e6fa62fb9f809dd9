import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, freePort, startMockKafka } from '@policyhub/testing';
import { START_FLAGS, spawnTs, stopChild } from './child.js';
import { apiCaller, type BenchSystem, benchUser } from './system.js';

const SERVICES = ['admin-orgs', 'storage', 'policy-sets', 'runs', 'gateway'] as const;
type Service = (typeof SERVICES)[number];
const READY_TIMEOUT_MS = 180_000;

async function waitReady(name: string, child: ChildProcess, opsUrl: string, output: () => string) {
  const until = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}\n${output()}`);
    const ready = await fetch(`${opsUrl}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ready) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${name} not ready within ${READY_TIMEOUT_MS} ms\n${output()}`);
}

/**
 * The distributed mode on this machine, as `npm run start:distributed` and the images run it:
 * each service and the gateway its own process (from source, same Node flags), real gRPC over
 * loopback, events over Kafka (librdkafka's mock cluster, the broker the e2e suite uses), objects
 * on the filesystem. Fresh database; rate limits off, quiet logs.
 */
export async function startDistributedSystem(): Promise<BenchSystem> {
  // A free port can be taken by another process before a service binds it: start again on new ones.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce();
    } catch (err) {
      if (attempt >= 3 || !/EADDRINUSE/.test(String((err as Error).message))) throw err;
    }
  }
}

async function startOnce(): Promise<BenchSystem> {
  const db = await createTestDatabase('ph_bench_dist');
  const kafka = await startMockKafka();
  const dataDir = mkdtempSync(join(tmpdir(), 'policyhub-bench-dist-'));
  const children = new Map<Service, ChildProcess>();
  const logs = new Map<Service, string[]>();
  const stopAll = async () => {
    await Promise.allSettled([...children.values()].map((c) => stopChild(c)));
    await kafka.stop();
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const ports = Object.fromEntries(
      await Promise.all(SERVICES.map(async (s) => [s, { main: await freePort(), ops: await freePort() }])),
    ) as Record<Service, { main: number; ops: number }>;
    const address = (s: Service) => `127.0.0.1:${ports[s].main}`;
    const siteAdminToken = `ph.bench-${randomBytes(24).toString('base64url')}`;
    const common = {
      INTERNAL_SIGNING_KEYS: `bench:${randomBytes(32).toString('base64url')}`,
      DATABASE_URL: db.url,
      KAFKA_BROKERS: kafka.brokers.join(','),
      // librdkafka's mock cluster has no idempotent producer (on by default everywhere else).
      KAFKA_IDEMPOTENT: 'false',
      LOG_LEVEL: 'warn',
      GRPC_HOST: '127.0.0.1',
      OPS_HOST: '127.0.0.1',
      ADMIN_ORGS_ADDR: address('admin-orgs'),
      POLICY_SETS_ADDR: address('policy-sets'),
      RUNS_ADDR: address('runs'),
      STORAGE_ADDR: address('storage'),
      REDIS_URL: '',
    };
    const own: Record<Service, Record<string, string>> = {
      'admin-orgs': { SITE_ADMIN_TOKEN: siteAdminToken },
      storage: { DATA_DIR: dataDir, UPLOAD_TMP_DIR: join(dataDir, 'staging') },
      'policy-sets': {},
      runs: {
        EVALUATOR_TOKENS: `ph.evaluator-${randomBytes(24).toString('base64url')}`,
        EXECUTOR_TOKENS: `ph.executor-${randomBytes(24).toString('base64url')}`,
      },
      gateway: {
        PORT: String(ports.gateway.main),
        HOST: '127.0.0.1',
        RATE_LIMIT_PER_SECOND: '0',
        AUTH_FAILURE_LIMIT: '0',
      },
    };
    await Promise.all(
      SERVICES.map(async (s) => {
        const child = spawnTs(
          `services/${s}/src/main.ts`,
          {
            ...common,
            ...(s === 'gateway' ? {} : { GRPC_PORT: String(ports[s].main) }),
            OPS_PORT: String(ports[s].ops),
            ...own[s],
          },
          START_FLAGS,
        );
        children.set(s, child);
        const lines: string[] = [];
        logs.set(s, lines);
        for (const stream of [child.stdout, child.stderr]) {
          stream?.setEncoding('utf8');
          stream?.on('data', (chunk: string) => {
            lines.push(chunk);
            if (lines.length > 100) lines.shift();
          });
        }
        await waitReady(s, child, `http://127.0.0.1:${ports[s].ops}`, () => lines.join(''));
      }),
    );
    const baseUrl = `http://127.0.0.1:${ports.gateway.main}`;
    const adminAuth = { authorization: `Bearer ${siteAdminToken}` };
    const auth = await benchUser(baseUrl, adminAuth);
    const call = apiCaller(baseUrl);
    return {
      mode: 'distributed',
      baseUrl,
      databaseUrl: db.url,
      dataDir,
      pids: () => SERVICES.map((s) => children.get(s)!.pid!),
      uploadPids: () => [children.get('gateway')!.pid!, children.get('storage')!.pid!],
      auth,
      adminAuth,
      api: (method, path, body) => call(auth, method, path, body),
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
