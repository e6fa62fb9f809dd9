import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@policyhub/testing';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3ObjectStore, type S3Settings } from '../src/objects/s3-store.js';
import { objectStoreContract } from './support/object-store-contract.js';

/**
 * The S3 adapter against a real S3 protocol server: s3rver in this process on a loopback port,
 * or MinIO when S3_ENDPOINT is set.
 */
let server: S3rver | undefined;
let directory: string | undefined;
let settings: S3Settings;
let bucketCounter = 0;

beforeAll(async () => {
  if (process.env.S3_ENDPOINT) {
    settings = {
      endpoint: process.env.S3_ENDPOINT,
      bucket: process.env.S3_BUCKET ?? 'policyhub-test',
      accessKey: process.env.S3_ACCESS_KEY ?? '',
      secretKey: process.env.S3_SECRET_KEY ?? '',
      region: process.env.S3_REGION ?? 'us-east-1',
    };
    return;
  }
  directory = mkdtempSync(join(tmpdir(), 'policyhub-s3rver-'));
  const port = await freePort();
  server = new S3rver({ address: '127.0.0.1', port, silent: process.env.S3RVER_LOGS !== '1', directory });
  await server.run();
  settings = {
    endpoint: `http://127.0.0.1:${port}`,
    bucket: 'policyhub-test',
    accessKey: 'S3RVER',
    secretKey: 'S3RVER',
    region: 'us-east-1',
  };
});

afterAll(async () => {
  await server?.close();
  if (directory) rmSync(directory, { recursive: true, force: true });
});

// A bucket per test keeps the contract's "fresh, empty store" promise.
objectStoreContract('s3', () =>
  S3ObjectStore.connect({ ...settings, bucket: `${settings.bucket}-${++bucketCounter}` }),
);

describe('s3 object store', () => {
  it('creates its bucket at start and accepts an existing one', async () => {
    const bucket = `${settings.bucket}-existing`;
    const first = await S3ObjectStore.connect({ ...settings, bucket });
    const second = await S3ObjectStore.connect({ ...settings, bucket });
    expect(await first.list('acme/')).toEqual([]);
    expect(await second.list('acme/')).toEqual([]);
  });
});
