import { type storageV1, uploadCompletedOwnerKind, uploadOwnerKind } from '@policyhub/contracts';
import type { Queryable } from '@policyhub/db';
import { type ConsumedEvent, startConsumer, type Subscription, TOPICS } from '@policyhub/events';
import { AdminOrgsLookup } from '../clients/admin-orgs-lookup.js';
import { VersionRepository } from '../db/version-repository.js';
import type { PolicySetsDeps } from '../deps.js';
import { settle, UPLOAD_OWNER_KIND, type UploadOutcome } from '../domain/versions.js';

export const UPLOAD_COMPLETED_CONSUMER = 'policy-sets.upload-completed';

/** How the consumer learns whether the organization may still take the upload. */
export type OrganizationStatusOf = (
  organization: string,
  organizationId: string | null,
) => Promise<'active' | 'disabled' | 'missing' | 'unknown'>;

/**
 * Applies an upload's outcome to its version: ready (and the set's current version) or errored.
 * Exactly once: startConsumer records the event id in the same transaction, and a version that
 * is no longer pending is left alone. A version deleted with its set meanwhile is ignored (storage
 * removes the archive when it consumes the set's deletion).
 *
 * Storage refuses uploads for disabled or deleted organizations before storing anything; an
 * organization disabled or deleted after storage's last check but before this runs (Kafka lag)
 * gets its version errored with the reason, and the set's current version does not change. When
 * admin-orgs cannot be reached the outcome is applied as storage reported it (storage checked
 * moments earlier), rather than dead-lettering the upload.
 */
export async function applyUploadCompleted(
  event: ConsumedEvent<storageV1.UploadCompleted__Output>,
  tx: Queryable,
  organizationStatus: OrganizationStatusOf,
) {
  const p = event.payload;
  if (uploadCompletedOwnerKind(p) !== uploadOwnerKind.fromKnownWord(UPLOAD_OWNER_KIND)) return;
  const repo = new VersionRepository(tx);
  const version = await repo.get(p.ownerId, { forUpdate: true });
  if (!version || version.status !== 'pending') return;
  let outcome: UploadOutcome = p.ok
    ? { ok: true, objectKey: p.objectKey ?? '', sizeBytes: Number(p.sizeBytes), sha256: p.sha256 ?? '' }
    : { ok: false, errorCode: p.errorCode ?? '', errorMessage: p.errorMessage ?? '' };
  if (outcome.ok) {
    const status = await organizationStatus(p.organization, version.organization_id);
    if (status === 'disabled' || status === 'missing') {
      outcome = {
        ok: false,
        errorCode: 'POLICY_SETS_ORGANIZATION_UNAVAILABLE',
        errorMessage: `the organization was ${status === 'disabled' ? 'disabled' : 'deleted'} before the upload was applied; the version was not used`,
      };
    }
  }
  const settlement = settle(version, outcome);
  if (!settlement) return;
  await repo.settle(version.id, settlement);
  if (settlement.status === 'ready') await repo.setCurrent(version.policy_set_id, version.id);
}

export function startUploadCompletedConsumer({
  db,
  transport,
  logger,
  clients,
}: PolicySetsDeps): Promise<Subscription> {
  const lookup = new AdminOrgsLookup(clients);
  return startConsumer({
    name: UPLOAD_COMPLETED_CONSUMER,
    db,
    transport,
    logger,
    handlers: [
      {
        topic: TOPICS.uploadCompleted,
        handle: (event, tx) =>
          applyUploadCompleted(event as ConsumedEvent<storageV1.UploadCompleted__Output>, tx, (name, id) =>
            lookup.organizationStatus(name, id),
          ),
      },
    ],
  });
}
