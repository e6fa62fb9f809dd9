import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { env, z } from '@policyhub/config';
import type { UploadLimits } from './domain/upload-limits.js';
import type { ObjectStoreSettings } from './objects/create-object-store.js';

const MiB = 1024 * 1024;

/**
 * Storage environment (services/storage/README.md lists each with its default). Limits are in
 * bytes; the defaults suit policy archives, which are typically a few KiB.
 */
export const storageConfigShape = {
  DATA_DIR: z.string().default('.data'),
  S3_ENDPOINT: env.optionalUrl(),
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a valid bucket name')
    .default('policyhub'),
  S3_ACCESS_KEY: z.string().optional(),
  S3_SECRET_KEY: z.string().optional(),
  S3_REGION: z.string().default('us-east-1'),
  UPLOAD_MAX_BYTES: env.int(50 * MiB, 1),
  UPLOAD_MAX_EXPANDED_BYTES: env.int(200 * MiB, 1),
  UPLOAD_MAX_ENTRIES: env.int(10_000, 1),
  UPLOAD_TIMEOUT_SECONDS: env.int(900, 1),
  UPLOAD_LEASE_SECONDS: env.int(30, 1),
  UPLOAD_SWEEP_INTERVAL_SECONDS: env.int(60, 1),
  OBJECT_MAX_BYTES: env.int(100 * MiB, 1),
  UPLOAD_TMP_DIR: z.string().optional(),
  ADMIN_ORGS_ADDR: env.address('127.0.0.1:50051'),
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
