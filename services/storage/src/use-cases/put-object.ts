import { tooLarge } from '@policyhub/errors';
import { ObjectRepository } from '../db/object-repository.js';
import type { Deps } from '../deps.js';
import { organizationOf, requireObjectKey } from '../domain/object-keys.js';
import { formatBytes, leaseRenewalMs } from '../domain/upload-limits.js';
import { openObjectWriter } from '../objects/object-writer.js';

/** The caller cancelled the stream before the object was stored. */
export class ObjectAbandonedError extends Error {
  constructor() {
    super('the caller abandoned the object');
    this.name = 'ObjectAbandonedError';
  }
}

/**
 * Stores an object given by key (internal callers, e.g. a run's plan JSON): streamed into the
 * object store through a writer (invisible until published), then recorded with its size and
 * SHA-256. Replaces an existing object.
 */
export async function putObject(
  deps: Pick<Deps, 'db' | 'store' | 'stagingDir' | 'limits'>,
  header: { key: string; contentType?: string | undefined; organizationId?: string | undefined },
  body: AsyncIterable<Buffer>,
  isAbandoned: () => boolean = () => false,
) {
  const key = requireObjectKey(header.key);
  const contentType = header.contentType || 'application/octet-stream';
  const maxBytes = deps.limits.maxObjectBytes;
  const writer = await openObjectWriter(deps.store, key, {
    contentType,
    // The object's temporary file stays fresh like an upload's (the sweeper's stale cutoff).
    keepAliveMs: leaseRenewalMs(deps.limits),
    stagingDir: deps.stagingDir,
  });
  try {
    for await (const chunk of body) {
      if (writer.sizeBytes + chunk.length > maxBytes) {
        throw tooLarge('STORAGE_OBJECT_TOO_LARGE', `the object is larger than ${formatBytes(maxBytes)}`);
      }
      await writer.write(chunk);
    }
    const sha256 = await writer.seal();
    // A caller that cancelled (e.g. runs refusing a plan mid-stream) leaves a body that may look
    // complete here: it must store nothing.
    if (isAbandoned()) throw new ObjectAbandonedError();
    await writer.publish();
    await new ObjectRepository(deps.db).upsert({
      key,
      organization: organizationOf(key),
      organizationId: header.organizationId ?? '',
      sizeBytes: writer.sizeBytes,
      sha256,
      contentType,
    });
    return { key, sizeBytes: writer.sizeBytes, sha256 };
  } finally {
    await writer.discard();
  }
}
