import * as grpc from '@grpc/grpc-js';
import {
  archiveLayout,
  type policysetsV1,
  policySetVersionSource,
  policySetVersionStatus,
  timestampToIso,
  toOptionalTimestamp,
  toTimestamp,
  uploadOwnerKind,
} from '@policyhub/contracts';
import { pageInfo, pageWindow } from '@policyhub/db';
import { newId, notFound, unavailable, unprocessable } from '@policyhub/errors';
import { type Handlers, readServiceError, rethrowAsAppError } from '@policyhub/grpc-runtime';
import { AdminOrgsLookup } from '../clients/admin-orgs-lookup.js';
import { VersionRepository, type VersionRow } from '../db/version-repository.js';
import type { PolicySetsDeps } from '../deps.js';
import { canManagePolicies } from '../domain/access.js';
import { checkFreeTierApiVersions } from '../domain/free-tier.js';
import { optional } from './mappers.js';
import {
  API_VERSION_SOURCE,
  archiveLayoutFor,
  canTakeUploadedVersions,
  isUploadUsable,
  UPLOAD_OWNER_KIND,
  uploadExpiry,
  VERSIONS_NOT_SUPPORTED_MESSAGE,
} from '../domain/versions.js';

export function toPolicySetVersion(r: VersionRow, now = new Date()): policysetsV1.PolicySetVersion {
  return {
    id: r.id,
    policySetId: r.policy_set_id,
    organization: r.organization,
    source: policySetVersionSource.fromKnownWord(r.source),
    status: policySetVersionStatus.fromKnownWord(r.status),
    statusTimestamps: {
      pendingAt: toTimestamp(r.pending_at),
      readyAt: toOptionalTimestamp(r.ready_at),
      erroredAt: toOptionalTimestamp(r.errored_at),
    },
    error: optional(r.error),
    errorMessage: optional(r.error_message),
    createdAt: toTimestamp(r.created_at),
    updatedAt: toTimestamp(r.updated_at),
    uploadToken: isUploadUsable(
      { status: r.status, uploadToken: r.upload_token, uploadExpiresAt: r.upload_expires_at },
      now,
    )
      ? r.upload_token!
      : undefined,
  };
}

const notSupported = () =>
  unprocessable('POLICY_SETS_VERSIONS_NOT_SUPPORTED', VERSIONS_NOT_SUPPORTED_MESSAGE);

/** storage's own errors pass through; its absence is a 503, not a 500. */
function storageError(err: unknown): never {
  const status = readServiceError(err).status;
  if (status === grpc.status.UNAVAILABLE || status === grpc.status.DEADLINE_EXCEEDED) {
    throw unavailable(
      'POLICY_SETS_STORAGE_UNAVAILABLE',
      'the storage service is unavailable; try again shortly',
    );
  }
  return rethrowAsAppError(err);
}

/**
 * Policy set versions (DESIGN §7.1): create (pending, with an upload session from storage), show,
 * list and batch get. Everything needs manage-policies on the set's organization; otherwise 404.
 * The outcome of an upload arrives as an event (consumers/upload-completed.ts).
 */
export function policySetVersionHandlers({
  db,
  clients,
  uploadUrlTtlMs,
}: PolicySetsDeps): Handlers<policysetsV1.PolicySetVersionsHandlers> {
  const repo = new VersionRepository(db);
  const lookup = new AdminOrgsLookup(clients);

  const visibleSet = async (principal: Parameters<typeof canManagePolicies>[0], id: string) => {
    const set = await repo.getSet(id);
    if (!set || !canManagePolicies(principal, set.organization, set.organization_id)) throw notFound();
    return set;
  };

  return {
    async CreatePolicySetVersion(req, { principal }) {
      const set = await visibleSet(principal, req.policySetId);
      if (!canTakeUploadedVersions({ hasVcsRepo: set.has_vcs_repo, hasPolicies: set.has_policies }))
        throw notSupported();
      if ((await lookup.organization(principal, set.organization)).isFreeTier) checkFreeTierApiVersions();

      const id = newId('polsetver');
      const createdAt = new Date();
      const layout = archiveLayoutFor({ kind: set.kind, policiesPath: set.policies_path });
      const session = await clients.storage
        .CreateUploadSession({
          organization: set.organization,
          organizationId: set.organization_id ?? undefined,
          ownerKind: uploadOwnerKind.fromKnownWord(UPLOAD_OWNER_KIND),
          ownerId: id,
          ownerParentId: set.id,
          expiresAt: toTimestamp(uploadExpiry(createdAt, uploadUrlTtlMs)),
          layout: archiveLayout.fromKnownWord(layout.layout),
          layoutRoot: layout.layoutRoot,
        })
        .catch(storageError);
      const uploadExpiresAt = timestampToIso(session.expiresAt);
      if (!uploadExpiresAt) throw new Error('storage opened an upload session without an expiry');

      // Storage's session exists now; if the set changed meanwhile it simply expires unused.
      const version = await db.transaction(async (tx) => {
        const r = new VersionRepository(tx);
        const locked = await r.getSet(set.id, { forUpdate: true });
        if (!locked) throw notFound();
        if (!canTakeUploadedVersions({ hasVcsRepo: locked.has_vcs_repo, hasPolicies: locked.has_policies }))
          throw notSupported();
        const row = await r.insert({
          id,
          policySetId: set.id,
          organization: set.organization,
          organizationId: set.organization_id,
          source: API_VERSION_SOURCE,
          uploadToken: session.token,
          uploadExpiresAt,
          createdAt: createdAt.toISOString(),
        });
        await r.recordNewest(set.id, id);
        return row;
      });
      return { version: toPolicySetVersion(version) };
    },

    async GetPolicySetVersion(req, { principal }) {
      const version = await repo.get(req.id);
      if (!version || !canManagePolicies(principal, version.organization, version.organization_id))
        throw notFound();
      return { version: toPolicySetVersion(version) };
    },

    async ListPolicySetVersions(req, { principal }) {
      const set = await visibleSet(principal, req.policySetId);
      const w = pageWindow(req.page);
      const { rows, total } = await repo.list(set.id, w.size, w.offset);
      const now = new Date();
      return { versions: rows.map((r) => toPolicySetVersion(r, now)), page: pageInfo(w, total) };
    },

    async BatchGetPolicySetVersions(req, { principal }) {
      const rows = await repo.getMany([...new Set(req.ids)].slice(0, 1000));
      const now = new Date();
      return {
        versions: rows
          .filter((r) => !principal || canManagePolicies(principal, r.organization, r.organization_id))
          .map((r) => toPolicySetVersion(r, now)),
      };
    },
  };
}
