import { type storageV1, uploadCompletedOwnerKind, uploadOwnerKind } from '@policyhub/contracts';
import type { Queryable } from '@policyhub/db';
import { type ConsumedEvent, startConsumer, type Subscription, TOPICS } from '@policyhub/events';
import { AdminOrgsLookup, type OrganizationState, uploadableStatus } from '../clients/admin-orgs-lookup.js';
import { VersionRepository } from '../db/version-repository.js';
import type { PolicySetsDeps } from '../deps.js';
import { settle, UPLOAD_OWNER_KIND, type UploadOutcome } from '../domain/versions.js';

export const UPLOAD_COMPLETED_CONSUMER = 'policy-sets.upload-completed';

/** How the consumer learns whether the organization may still take the upload. */
export type OrganizationStateOf = (organization: string) => Promise<OrganizationState>;

/** Whether an upload-completed event is a policy set version's (the others are someone else's). */
export const isPolicySetVersionUpload = (p: storageV1.UploadCompleted__Output): boolean =>
  uploadCompletedOwnerKind(p) === uploadOwnerKind.fromKnownWord(UPLOAD_OWNER_KIND);

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
  organizationState: OrganizationStateOf,
) {
  const p = event.payload;
  if (!isPolicySetVersionUpload(p)) return;
  // Asked while the version is read (it only needs the name); its id is compared below.
  const organization = p.ok ? organizationState(p.organization) : undefined;
  organization?.catch(() => {});
  const repo = new VersionRepository(tx);
  const version = await repo.get(p.ownerId, { forUpdate: true });
  if (!version || version.status !== 'pending') return;
  let outcome: UploadOutcome = p.ok
    ? { ok: true, objectKey: p.objectKey ?? '', sizeBytes: p.sizeBytes, sha256: p.sha256 ?? '' }
    : { ok: false, errorCode: p.errorCode ?? '', errorMessage: p.errorMessage ?? '' };
  if (outcome.ok && organization) {
    const status = uploadableStatus(await organization, version.organization_id);
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
        accepts: isPolicySetVersionUpload,
        handle: (event, tx) =>
          applyUploadCompleted(event as ConsumedEvent<storageV1.UploadCompleted__Output>, tx, (name) =>
            lookup.organizationState(name),
          ),
      },
    ],
  });
}
