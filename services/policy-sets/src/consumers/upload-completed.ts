import type { storageV1 } from '@policyhub/contracts';
import type { Queryable } from '@policyhub/db';
import { type ConsumedEvent, startConsumer, type Subscription, TOPICS } from '@policyhub/events';
import { VersionRepository } from '../db/version-repository.js';
import type { PolicySetsDeps } from '../deps.js';
import { settle, UPLOAD_OWNER_KIND, type UploadOutcome } from '../domain/versions.js';

export const UPLOAD_COMPLETED_CONSUMER = 'policy-sets.upload-completed';

/**
 * Applies an upload's outcome to its version: ready (and the set's current version) or errored.
 * Exactly once: startConsumer records the event id in the same transaction, and a version that
 * is no longer pending is left alone. A version deleted with its set meanwhile is ignored (storage
 * removes the archive when it consumes the set's deletion).
 */
export async function applyUploadCompleted(
  event: ConsumedEvent<storageV1.UploadCompleted__Output>,
  tx: Queryable,
) {
  const p = event.payload;
  if (p.ownerKind !== UPLOAD_OWNER_KIND) return;
  const repo = new VersionRepository(tx);
  const version = await repo.get(p.ownerId, { forUpdate: true });
  if (!version) return;
  const outcome: UploadOutcome = p.ok
    ? { ok: true, objectKey: p.objectKey, sizeBytes: Number(p.sizeBytes), sha256: p.sha256 }
    : { ok: false, errorCode: p.errorCode, errorMessage: p.errorMessage };
  const settlement = settle(version, outcome);
  if (!settlement) return;
  await repo.settle(version.id, settlement);
  if (settlement.status === 'ready') await repo.setCurrent(version.policy_set_id, version.id);
}

export function startUploadCompletedConsumer({
  db,
  transport,
  logger,
}: PolicySetsDeps): Promise<Subscription> {
  return startConsumer({
    name: UPLOAD_COMPLETED_CONSUMER,
    db,
    transport,
    logger,
    handlers: [{ topic: TOPICS.uploadCompleted, handle: applyUploadCompleted }],
  });
}
