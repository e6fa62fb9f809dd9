import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { contracts } from '@policyhub/contracts';
import { InProcessTransport } from '@policyhub/events';
import { InternalAuth, implement } from '@policyhub/grpc-runtime';
import { createLogger } from '@policyhub/telemetry';
import {
  createTestDatabase,
  type TestDatabase,
  testServerUrl,
  testSigningKeys,
  waitFor,
} from '@policyhub/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startGrpcService } from '../src/index.js';

/**
 * grpc.health.v1 on a service's own gRPC port, asked as a Kubernetes `grpc:` probe or
 * grpc_health_probe would: a plain client without any internal credential. The service is a real
 * startGrpcService on a real Postgres; the database outage is real too (connections refused).
 */
const Health = contracts().grpc.health.v1.Health;
const IDENTITY = 'policyhub.adminorgs.v1.Identity';
let database: TestDatabase;
let service: RunningService;
let health: InstanceType<typeof Health>;
let migrationsDir: string;

const check = (name: string): Promise<string> =>
  new Promise((resolve, reject) => {
    health.Check({ service: name }, (err: grpc.ServiceError | null, res?: { status: string }) =>
      err ? reject(err) : resolve(res!.status),
    );
  });

const codeOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
    return grpc.status.OK;
  } catch (err) {
    return (err as grpc.ServiceError).code;
  }
};

/** Refuses (or again allows) new connections to the service's database and ends the open ones. */
async function setDatabaseReachable(reachable: boolean) {
  const admin = new pg.Client({ connectionString: await testServerUrl() });
  await admin.connect();
  const name = new URL(database.url).pathname.slice(1);
  try {
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS ${reachable}`);
    if (!reachable)
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
  } finally {
    await admin.end();
  }
}

beforeAll(async () => {
  database = await createTestDatabase('ph_health');
  migrationsDir = mkdtempSync(join(tmpdir(), 'ph-health-migrations-'));
  const v1 = contracts().policyhub.adminorgs.v1;
  const auth = new InternalAuth({ keys: testSigningKeys, service: 'health-test' });
  service = await startGrpcService({
    name: 'health-test',
    schema: 'health_test',
    databaseUrl: database.url,
    migrationsDir,
    grpcAddress: '127.0.0.1:0',
    transport: new InProcessTransport(),
    logger: createLogger('health-test', 'silent'),
    auth,
    register(server, deps) {
      const handlers = { GetAccountDetails: async () => ({ id: 'user-1' }) };
      server.addService(v1.Identity.service, implement(handlers as never, { ...deps, auth }));
    },
  });
  health = new Health(service.address, grpc.credentials.createInsecure());
});

afterAll(async () => {
  health?.close();
  await setDatabaseReachable(true).catch(() => {});
  await service?.close();
  await database?.drop();
  rmSync(migrationsDir, { recursive: true, force: true });
});

describe('grpc.health.v1 on the serving port', () => {
  it('answers SERVING for the server and each of its services, without any credential', async () => {
    expect(await check('')).toBe('SERVING');
    expect(await check(IDENTITY)).toBe('SERVING');
    expect(await check('liveness')).toBe('SERVING');
    expect(await codeOf(check('policyhub.nothing.v1.Here'))).toBe(grpc.status.NOT_FOUND);

    // The API itself still refuses a caller without the internal assertion.
    const identity = new (contracts().policyhub.adminorgs.v1.Identity)(
      service.address,
      grpc.credentials.createInsecure(),
    );
    const denied = await codeOf(
      new Promise((resolve, reject) =>
        identity.GetAccountDetails({}, (err: grpc.ServiceError | null, res: unknown) =>
          err ? reject(err) : resolve(res),
        ),
      ),
    );
    identity.close();
    expect(denied).toBe(grpc.status.UNAUTHENTICATED);
  });

  it('turns NOT_SERVING while the database refuses connections (liveness stays SERVING), and back', async () => {
    await setDatabaseReachable(false);
    await waitFor(async () => (await check('')) === 'NOT_SERVING', 15_000);
    expect(await check(IDENTITY)).toBe('NOT_SERVING');
    expect(await check('liveness')).toBe('SERVING');

    await setDatabaseReachable(true);
    await waitFor(async () => (await check('')) === 'SERVING', 15_000);
  });

  it('streams the status on Watch', async () => {
    const call = health.Watch({ service: IDENTITY });
    const first = await new Promise<{ status: string }>((resolve, reject) => {
      call.once('data', resolve);
      call.once('error', reject);
    });
    call.cancel();
    expect(first.status).toBe('SERVING');
  });
});
