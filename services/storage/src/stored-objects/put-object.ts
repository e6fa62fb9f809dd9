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
}

/**
 * Stores an object given by key (internal callers, e.g. a run's plan JSON): staged first so the
 * store gets a known size, then recorded with its size and SHA-256. Replaces an existing object.
 */
export async function putObject(
  deps: PutObjectDeps,
  header: { key: string; contentType: string },
  body: AsyncIterable<Buffer>,
) {
  const key = requireObjectKey(header.key);
  const contentType = header.contentType || 'application/octet-stream';
  const staging = await StagingFile.create(deps.stagingDir);
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
    await deps.store.put(key, await staging.read(), staging.sizeBytes, contentType);
    await new ObjectRepository(deps.db).upsert({
      key,
      organization: organizationOf(key),
      sizeBytes: staging.sizeBytes,
      sha256,
      contentType,
    });
    return { key, sizeBytes: staging.sizeBytes, sha256 };
  } finally {
    await staging.remove();
  }
}
