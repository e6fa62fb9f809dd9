import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSystem } from '@policyhub/embedded';
import { KafkaTransport } from '@policyhub/events';
import { createLogger } from '@policyhub/telemetry';
import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeTransportContract } from '../../packages/events/test/transport-contract.js';
import { S3ObjectStore } from '../../services/storage/src/objects/s3-store.js';
import { objectStoreContract } from '../../services/storage/test/support/object-store-contract.js';
import { ApiClient } from '../test/support/api.js';
import { policyArchive, putArchive } from '../test/support/archives.js';
import { type Engines, startEngines } from './engines.js';
import { containerRuntime } from './runtime.js';

/**
 * The transport, object-store and pipeline suites against real Kafka, MinIO, Postgres and Redis in
 * containers. Needs a container engine; where there is none (as on the CI machines of this
 * project) every test is skipped and the reason is printed.
 */
const runtime = await containerRuntime();
if (!runtime.available) console.warn(`[test:containers] skipped: no container runtime (${runtime.reason})`);

describe.skipIf(!runtime.available)('against real engines in containers', () => {
  let engines: Engines;
  let bucket = 0;
  const logger = createLogger('containers-test', 'error');

  beforeAll(async () => {
    engines = await startEngines();
  });
  afterAll(async () => {
    await engines?.stop();
  });

  describeTransportContract('kafka (container)', async () => {
    const transport = new KafkaTransport({
      brokers: engines.kafkaBrokers,
      clientId: 'containers-test',
      logger,
    });
    return { transport, cleanup: () => transport.close() };
  });

  objectStoreContract('minio (container)', () =>
    S3ObjectStore.connect({ ...engines.s3, bucket: `${engines.s3.bucket}-${++bucket}` }),
  );

  it('runs the upload pipeline on Postgres, Kafka, MinIO and Redis', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'policyhub-containers-'));
    Object.assign(process.env, {
      S3_ENDPOINT: engines.s3.endpoint,
      S3_BUCKET: engines.s3.bucket,
      S3_ACCESS_KEY: engines.s3.accessKey,
      S3_SECRET_KEY: engines.s3.secretKey,
    });
    const system = await startSystem({
      port: 0,
      dataDir,
      databaseUrl: engines.databaseUrl,
      kafkaBrokers: engines.kafkaBrokers,
      redisUrl: engines.redisUrl,
      logLevel: 'error',
    });
    try {
      const api = new ApiClient(system.baseUrl, system.siteAdminToken);
      expect(
        (
          await api.post('/organizations', {
            data: { type: 'organizations', attributes: { name: 'ctr', email: 'c@example.com' } },
          })
        ).status,
      ).toBe(201);
      const set = await api.post('/organizations/ctr/policy-sets', {
        data: { type: 'policy-sets', attributes: { name: 's' } },
      });
      const version = await api.post(`/policy-sets/${set.body.data.id}/versions`);
      expect((await putArchive(version.body.data.links.upload, await policyArchive())).status).toBe(200);
      await waitFor(
        async () =>
          (await api.get(`/policy-set-versions/${version.body.data.id}`)).body.data.attributes.status ===
          'ready',
        60_000,
      );
    } finally {
      await system.close();
      for (const k of ['S3_ENDPOINT', 'S3_BUCKET', 'S3_ACCESS_KEY', 'S3_SECRET_KEY']) delete process.env[k];
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
