import {
  type policysetsV1,
  policySetVersionRole,
  policySetVersionSource,
  policySetVersionStatus,
  toOptionalTimestamp,
  toTimestamp,
} from '@policyhub/contracts';
import type { Handlers, UploadTokens } from '@policyhub/grpc-runtime';
import type { VersionRow } from '../db/version-repository.js';
import { isUploadUsable } from '../domain/versions.js';
import type { PolicySetVersionUseCases } from '../use-cases/policy-set-versions.js';
import { declaredPolicyMessage } from './declarations.js';
import { optional } from './mappers.js';

/**
 * The version as served. A pending version's upload URL token is minted afresh from its storage
 * session id on every read (ADR 0059): nothing that works as an upload URL is stored.
 */
export function toPolicySetVersion(
  r: VersionRow,
  uploadTokens: UploadTokens,
  now = new Date(),
): policysetsV1.PolicySetVersion {
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
      { status: r.status, uploadSessionId: r.upload_session_id, uploadExpiresAt: r.upload_expires_at },
      now,
    )
      ? uploadTokens.mint(r.upload_session_id!, r.upload_expires_at)
      : undefined,
    createdBy: optional(r.created_by),
    sha256: optional(r.sha256),
    role: r.role ? policySetVersionRole.fromKnownWord(r.role) : undefined,
    declaredPolicies: r.declaration
      ? { policies: r.declaration.policies.map(declaredPolicyMessage) }
      : undefined,
  };
}

/** Policy set versions (use-cases/policy-set-versions.ts); upload outcomes arrive as events. */
export function policySetVersionHandlers(
  versions: PolicySetVersionUseCases,
  uploadTokens: UploadTokens,
): Handlers<policysetsV1.PolicySetVersionsHandlers> {
  return {
    async CreatePolicySetVersion(req, { principal }) {
      const version = await versions.create(principal, req.policySetId, {
        autoPromote: req.autoPromote ?? true,
      });
      return { version: toPolicySetVersion(version, uploadTokens) };
    },

    async PromotePolicySetVersion(req, { principal }) {
      return { version: toPolicySetVersion(await versions.promote(principal, req.id), uploadTokens) };
    },

    async GetPolicySetVersion(req, { principal }) {
      return { version: toPolicySetVersion(await versions.get(principal, req.id), uploadTokens) };
    },

    async ListPolicySetVersions(req, { principal }) {
      const res = await versions.list(principal, req.policySetId, req.page, req.statuses);
      const now = new Date();
      return { versions: res.versions.map((r) => toPolicySetVersion(r, uploadTokens, now)), page: res.page };
    },

    async BatchGetPolicySetVersions(req, { principal }) {
      const now = new Date();
      return {
        versions: (await versions.batchGet(principal, req.ids)).map((r) =>
          toPolicySetVersion(r, uploadTokens, now),
        ),
      };
    },
  };
}
