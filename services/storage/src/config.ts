import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { documented as doc, env, z } from '@policyhub/config';
import type { UploadLimits } from './domain/upload-limits.js';
import type { ObjectStoreSettings } from './objects/create-object-store.js';

const MiB = 1024 * 1024;

/**
 * Storage environment (docs/configuration.md is generated from it). Limits are in bytes; the
 * defaults suit policy archives, which are typically a few KiB.
 */
export const storageConfigShape = {
  DATA_DIR: doc(z.string().default('.data'), 'the filesystem object store lives in `DATA_DIR/objects`'),
  S3_ENDPOINT: doc(
    env.optionalUrl(),
    'S3/MinIO endpoint, e.g. `http://minio:9000` (`https://` uses TLS)',
    'unset → filesystem store in `DATA_DIR/objects`',
  ),
  S3_BUCKET: doc(
    z
      .string()
      .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a valid bucket name')
      .default('policyhub'),
    'bucket, created at start when missing',
  ),
  S3_ACCESS_KEY: doc(z.string().optional(), 'S3 access key'),
  S3_SECRET_KEY: doc(z.string().optional(), 'S3 secret key (never logged)'),
  S3_REGION: doc(z.string().default('us-east-1'), 'region for signing and bucket creation'),
  UPLOAD_MAX_BYTES: doc(
    env.int(50 * MiB, 1),
    'compressed size of an uploaded archive (larger: 413)',
    '`52428800` (50 MiB)',
  ),
  UPLOAD_MAX_EXPANDED_BYTES: doc(
    env.int(200 * MiB, 1),
    "total size of an archive's files once decompressed",
    '`209715200` (200 MiB)',
  ),
  UPLOAD_MAX_ENTRIES: doc(env.int(10_000, 1), 'entries per archive'),
  UPLOAD_TIMEOUT_SECONDS: doc(
    env.int(900, 1),
    'an upload still streaming after this is abandoned (400; the URL stays usable)',
  ),
  UPLOAD_LEASE_SECONDS: doc(
    env.int(30, 1),
    'an upload holds its URL with a lease it renews while it runs; after a crash the URL works again within this long (until then: 409 in progress)',
  ),
  UPLOAD_SWEEP_INTERVAL_SECONDS: doc(
    env.int(60, 1),
    "how often storage's upload sweeper runs (and once at start): URLs that expired unused turn their version `errored` (`STORAGE_UPLOAD_EXPIRED`); partial uploads untouched for two leases are removed ([ADR 0024](adr/0024-upload-expiry-leases-and-sweeps.md))",
  ),
  OBJECT_MAX_BYTES: doc(
    env.int(100 * MiB, 1),
    'size of an object stored internally (plan JSON, …)',
    '`104857600` (100 MiB)',
  ),
  UPLOAD_TMP_DIR: doc(
    z.string().optional(),
    'staging files of uploads on their way to S3 (the filesystem store writes them straight into `DATA_DIR/objects/.tmp`)',
    '`<os tmp>/policyhub-staging`',
  ),
  ADMIN_ORGS_ADDR: doc(
    env.address('127.0.0.1:50051'),
    'admin-orgs gRPC address: uploads are refused while their organization is disabled',
  ),
};

export type StorageConfig = z.infer<z.ZodObject<typeof storageConfigShape>>;

/** What startStorage needs beyond the shared service options. */
export interface StorageSettings {
  objects: ObjectStoreSettings;
  limits: UploadLimits;
  /** Where uploads are staged while they are validated (never inside the object store). */
  stagingDir: string;
  /** How often the upload sweeper runs (expired sessions, staging files left by a crash). */
  sweepIntervalMs: number;
}

export function storageSettings(config: StorageConfig): StorageSettings {
  const objects: ObjectStoreSettings = config.S3_ENDPOINT
    ? {
        kind: 's3',
        endpoint: config.S3_ENDPOINT,
        bucket: config.S3_BUCKET,
        accessKey: config.S3_ACCESS_KEY ?? '',
        secretKey: config.S3_SECRET_KEY ?? '',
        region: config.S3_REGION,
      }
    : { kind: 'filesystem', root: join(resolve(config.DATA_DIR), 'objects') };
  return {
    objects,
    limits: {
      maxBytes: config.UPLOAD_MAX_BYTES,
      maxExpandedBytes: config.UPLOAD_MAX_EXPANDED_BYTES,
      maxEntries: config.UPLOAD_MAX_ENTRIES,
      maxObjectBytes: config.OBJECT_MAX_BYTES,
      uploadTimeoutMs: config.UPLOAD_TIMEOUT_SECONDS * 1000,
      uploadLeaseMs: config.UPLOAD_LEASE_SECONDS * 1000,
    },
    stagingDir: config.UPLOAD_TMP_DIR ?? join(tmpdir(), 'policyhub-staging'),
    sweepIntervalMs: config.UPLOAD_SWEEP_INTERVAL_SECONDS * 1000,
  };
}
