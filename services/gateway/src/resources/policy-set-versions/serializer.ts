import type { policysetsV1 } from '@policyhub/contracts';
import { type ResourceObject, orNull, selfLink, toOne } from '../../jsonapi/document.js';

/** Absolute upload URL for a capability token (DESIGN §7). */
export const uploadUrl = (baseUrl: string, token: string): string => `${baseUrl}/api/v2/uploads/${token}`;

/**
 * The one serializer of `policy-set-versions` (create, show, list, included). The upload link is
 * emitted both as `links.upload` (upstream) and `attributes.upload` (spec) while usable.
 */
export function serializePolicySetVersion(
  v: policysetsV1.PolicySetVersion__Output,
  baseUrl: string,
): ResourceObject {
  const upload = v.uploadToken ? uploadUrl(baseUrl, v.uploadToken) : null;
  return {
    id: v.id,
    type: 'policy-set-versions',
    attributes: {
      source: v.source,
      status: v.status,
      'status-timestamps': { ...v.statusTimestamps },
      error: orNull(v.error),
      'error-message': orNull(v.errorMessage),
      'ingress-attributes': null,
      'created-at': v.createdAt,
      'updated-at': v.updatedAt,
      created_at: v.createdAt,
      upload,
    },
    relationships: { 'policy-set': toOne('policy-sets', v.policySetId) },
    links: { ...selfLink(`/policy-set-versions/${v.id}`), upload },
  };
}
