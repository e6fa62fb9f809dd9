import type { Db } from '@policyhub/db';
import { tooLarge } from '@policyhub/errors';
import { ObjectRepository } from '../db/object-repository.js';
import { organizationOf, requireObjectKey } from '../domain/object-keys.js';
import { formatBytes } from '../domain/upload-limits.js';
import type { ObjectStore } from '../objects/object-store.js';
import { StagingFile } from '../uploads/staging-file.js';

export interface PutObjectDeps {
  db: Db;
  store: ObjectStore;
  stagingDir: string;
  maxObjectBytes: number;
  /** How often the staging file is touched while the object streams in (see StagingFile). */
  stagingKeepAliveMs: number;
}

/** The caller cancelled the stream before the object was stored. */
export class ObjectAbandonedError extends Error {
  constructor() {
    super('the caller abandoned the object');
    this.name = 'ObjectAbandonedError';
  }
}

/**
 * Stores an object given by key (internal callers, e.g. a run's plan JSON): staged first so the
 * store gets a known size, then recorded with its size and SHA-256. Replaces an existing object.
 */
export async function putObject(
  deps: PutObjectDeps,
  header: { key: string; contentType: string; organizationId?: string },
  body: AsyncIterable<Buffer>,
  isAbandoned: () => boolean = () => false,
) {
  const key = requireObjectKey(header.key);
  const contentType = header.contentType || 'application/octet-stream';
  const staging = await StagingFile.create(deps.stagingDir, deps.stagingKeepAliveMs);
  try {
    for await (const chunk of body) {
      if (staging.sizeBytes + chunk.length > deps.maxObjectBytes) {
        throw tooLarge(
          'STORAGE_OBJECT_TOO_LARGE',
          `the object is larger than ${formatBytes(deps.maxObjectBytes)}`,
        );
      }
      await staging.write(chunk);
    }
    const sha256 = await staging.seal();
    // A caller that cancelled (e.g. runs refusing a plan mid-stream) leaves a body that may look
    // complete here: it must store nothing.
    if (isAbandoned()) throw new ObjectAbandonedError();
    await deps.store.put(key, await staging.read(), staging.sizeBytes, contentType);
    await new ObjectRepository(deps.db).upsert({
      key,
      organization: organizationOf(key),
      organizationId: header.organizationId ?? '',
      sizeBytes: staging.sizeBytes,
      sha256,
      contentType,
    });
    return { key, sizeBytes: staging.sizeBytes, sha256 };
  } finally {
    await staging.remove();
  }
}
