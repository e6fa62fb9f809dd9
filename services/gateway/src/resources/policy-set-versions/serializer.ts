import {
  declaredEnforcementLevel,
  type policysetsV1,
  policySetVersionRole,
  policySetVersionSource,
  policySetVersionStatus,
  timestampToIso,
} from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import { isoTime, selfLink, toOne } from '../../jsonapi/document.js';
import type { POLICY_SET_VERSION } from './schema.js';

export type PolicySetVersionObject = Static<typeof POLICY_SET_VERSION.schema>;

/** Absolute upload URL for a capability token (ADR 0003). */
export const uploadUrl = (baseUrl: string, token: string): string => `${baseUrl}/api/v2/uploads/${token}`;

/** `status-timestamps`: `<status>-at` for each status the version has reached. */
function statusTimestamps(t: policysetsV1.PolicySetVersionStatusTimestamps__Output | null) {
  const out: Record<string, string> = {};
  for (const [key, at] of [
    ['pending-at', t?.pendingAt],
    ['ready-at', t?.readyAt],
    ['errored-at', t?.erroredAt],
  ] as const) {
    const iso = timestampToIso(at);
    if (iso) out[key] = iso;
  }
  return out;
}

/**
 * The one serializer of `policy-set-versions` (create, show, list, included). The upload link is
 * emitted both as `links.upload` (upstream) and `attributes.upload` (spec) while usable.
 */
export function serializePolicySetVersion(
  v: policysetsV1.PolicySetVersion__Output,
  baseUrl: string,
): PolicySetVersionObject {
  const upload = v.uploadToken ? uploadUrl(baseUrl, v.uploadToken) : null;
  const createdAt = isoTime(v.createdAt);
  return {
    id: v.id,
    type: 'policy-set-versions',
    attributes: {
      source: policySetVersionSource.toWord(v.source),
      status: policySetVersionStatus.toWord(v.status),
      'status-timestamps': statusTimestamps(v.statusTimestamps),
      error: v.error ?? null,
      'error-message': v.errorMessage ?? null,
      'ingress-attributes': null,
      'created-at': createdAt,
      'updated-at': isoTime(v.updatedAt),
      created_at: createdAt,
      upload,
      'archive-sha256': v.sha256 ?? null,
      role: v.role ? policySetVersionRole.toWord(v.role) : null,
      'declared-policies': v.declaredPolicies
        ? v.declaredPolicies.policies.map((p) => ({
            name: p.name,
            'enforcement-level': declaredEnforcementLevel.toWord(p.enforcementLevel),
          }))
        : null,
    },
    relationships: {
      'policy-set': toOne('policy-sets', v.policySetId),
      'created-by': toOne('users', v.createdBy ?? null),
    },
    links: { ...selfLink(`/policy-set-versions/${v.id}`), upload },
  };
}
