import type { Queryable } from '@policyhub/db';
import { VersionRepository } from '../db/version-repository.js';
import type { Deps } from '../deps.js';
import { settle, type UploadOutcome, uploadableStatus } from '../domain/versions.js';

/** A finished upload of a version's archive, as storage reported it. */
export interface CompletedUpload {
  versionId: string;
  /** The organization the upload was made for (by name; its id is on the version). */
  organization: string;
  outcome: UploadOutcome;
}

/**
 * Applies an upload's outcome to its version inside the consumer's transaction `tx`: ready (and
 * the set's current version) or errored. A version that is no longer pending is left alone, and
 * one deleted with its set meanwhile is ignored (storage removes the archive when it consumes the
 * set's deletion).
 *
 * Storage refuses uploads for disabled or deleted organizations before storing anything; an
 * organization disabled or deleted after storage's last check but before this runs (Kafka lag)
 * gets its version errored with the reason, and the set's current version does not change. When
 * admin-orgs cannot be reached the outcome is applied as storage reported it (storage checked
 * moments earlier), rather than dead-lettering the upload.
 */
export async function applyUploadCompleted(
  { tenancy }: Pick<Deps, 'tenancy'>,
  tx: Queryable,
  upload: CompletedUpload,
): Promise<void> {
  // Asked while the version is read (it only needs the name); its id is compared below.
  const organization = upload.outcome.ok ? tenancy.organizationState(upload.organization) : undefined;
  organization?.catch(() => {});
  const repo = new VersionRepository(tx);
  const version = await repo.get(upload.versionId, { forUpdate: true });
  if (version?.status !== 'pending') return;
  let outcome = upload.outcome;
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
