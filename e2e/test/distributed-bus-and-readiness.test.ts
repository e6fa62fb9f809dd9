import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase, waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type MultiProcessSystem,
  reportServiceOutputOnFailure,
  SERVICE_NAMES,
  type ServiceName,
  startMultiProcessSystem,
} from './support/multi-process.js';

/**
 * In distributed mode a service must never fall back to in-process events (it would
 * mark them sent and lose them), and `/readyz` must tell operators which dependency failed.
 */
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STATEFUL = ['admin-orgs', 'policy-sets', 'runs', 'storage'] as const;
const START_TIMEOUT_MS = 90_000;

/** Runs one service's main.ts as a container would, with only `env`; resolves when it exits. */
function runService(name: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--conditions=@policyhub/source', '--import', 'tsx', `services/${name}/src/main.ts`],
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} still running after ${START_TIMEOUT_MS} ms:\n${stdout}\n${stderr}`));
    }, START_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('a service in its own process', () => {
  let database: TestDatabase;
  const signingKeys = `test:${randomBytes(32).toString('base64url')}`;
  beforeAll(async () => {
    database = await createTestDatabase('ph_no_bus');
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('refuses to start without KAFKA_BROKERS: exit 2 and one line naming it', async () => {
    const runs = await Promise.all(
      STATEFUL.map((name) =>
        runService(name, { DATABASE_URL: database.url, INTERNAL_SIGNING_KEYS: signingKeys, OPS_PORT: '0' }),
      ),
    );
    for (const [i, run] of runs.entries()) {
      const name = STATEFUL[i];
      expect(run.code, `${name}: ${run.stderr}`).toBe(2);
      expect(run.stderr.trim().split('\n'), name).toEqual([
        `${name}: KAFKA_BROKERS is required: a service in its own process exchanges events only through Kafka (npm start runs every service in one process with in-process events)`,
      ]);
      expect(run.stdout, name).toBe('');
    }
    // Nothing started: not even the schema was created.
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query("SELECT nspname FROM pg_namespace WHERE nspname = 'policy_sets'");
      expect(rows).toEqual([]);
    } finally {
      await client.end();
    }
  });

  it('runs its migrations without one (MIGRATE_ONLY needs no bus)', async () => {
    const run = await runService('policy-sets', {
      DATABASE_URL: database.url,
      INTERNAL_SIGNING_KEYS: signingKeys,
      MIGRATE_ONLY: 'true',
      LOG_LEVEL: 'info',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('migrations done; exiting (MIGRATE_ONLY)');
  });
});

describe('the distributed system', () => {
  let t: MultiProcessSystem;
  beforeAll(async () => {
    // Info-level logs from one service, to read the line saying which bus it uses.
    t = await startMultiProcessSystem({ env: { 'policy-sets': { LOG_LEVEL: 'info' } } });
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
  }, 60_000);
  reportServiceOutputOnFailure(() => t);

  const readyz = async (name: ServiceName) => {
    const res = await fetch(`${t.services[name].opsUrl}/readyz`, { signal: AbortSignal.timeout(10_000) });
    return {
      status: res.status,
      body: (await res.json()) as { status: string; checks: Record<string, Record<string, unknown>> },
    };
  };

  it('logs at start which event bus each service uses', () => {
    const line = t.services['policy-sets']
      .output()
      .split('\n')
      .find((l) => l.includes('"msg":"event bus"'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!.slice(line!.indexOf('{')))).toMatchObject({
      mode: 'distributed',
      events: 'kafka',
      brokers: t.kafka.brokers,
      idempotentProducer: false,
      tls: false,
      sasl: 'none',
    });
  });

  it('names every dependency on /readyz: a service its database, bus and outbox; the gateway its backends', async () => {
    for (const name of STATEFUL) {
      const { status, body } = await readyz(name);
      expect(status, name).toBe(200);
      // Every stateful service publishes events (runs too: its audit records leave through its outbox).
      expect(body, name).toEqual({
        status: 'ready',
        checks: {
          database: { status: 'up', required: true },
          bus: { status: 'up', required: true, kind: 'kafka' },
          outbox: { status: 'up', required: true, pending: 0, oldestPendingSeconds: 0 },
        },
      });
    }
    expect(await readyz('gateway')).toEqual({
      status: 200,
      body: {
        status: 'ready',
        checks: Object.fromEntries(STATEFUL.map((name) => [name, { status: 'up', required: true }])),
      },
    });
  });

  it('takes the gateway out of service while a backend is gone, and names it', async () => {
    await t.services.runs.kill();
    const { status, body } = await waitFor(async () => {
      const r = await readyz('gateway');
      return r.status === 503 ? r : undefined;
    }, 30_000);
    expect(status).toBe(503);
    expect(body.status).toBe('not ready');
    expect(body.checks.runs).toMatchObject({ status: 'down', required: true, detail: expect.any(String) });
    expect(body.checks['admin-orgs']).toEqual({ status: 'up', required: true });
  });

  it('takes producers out of service while Kafka is unreachable, naming the bus, and keeps them running', async () => {
    await t.kafka.stop();
    const producers = ['admin-orgs', 'policy-sets', 'storage'] as const;
    for (const name of producers) {
      const { status, body } = await waitFor(async () => {
        const r = await readyz(name);
        return r.status === 503 ? r : undefined;
      }, 30_000);
      expect(status, name).toBe(503);
      expect(body.checks.bus, name).toMatchObject({
        status: 'down',
        required: true,
        detail: expect.any(String),
      });
      expect(body.checks.database, name).toEqual({ status: 'up', required: true });
    }
    expect(SERVICE_NAMES.filter((name) => name !== 'runs' && !t.services[name].isRunning)).toEqual([]);
  });
});
