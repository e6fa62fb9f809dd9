import { enforcementLevel, type policysetsV1, policyKind, timestampToIso } from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import { API_PREFIX, isoTime, toMany, toOne } from '../../jsonapi/document.js';
import type { POLICY } from './schema.js';

export type PolicyObject = Static<typeof POLICY.schema>;

/**
 * File name shown in the deprecated `enforce` form when the client never sent one. Not a spec
 * name (the spec has no policy files): the same in every vocabulary profile, and neutral.
 */
const defaultEnforcePath = (name: string) => `${name}.policy`;

/**
 * The one serializer of `policies` (create, show, list, included). The enforcement level is
 * emitted both as `enforcement-level` and, once code was uploaded, in the deprecated
 * `enforce: [{path, mode}]` form (upstream answers `[]` until then); `updated-at` is the last
 * code upload (null before).
 */
export function serializePolicy(p: policysetsV1.Policy__Output): PolicyObject {
  const level = enforcementLevel.toWord(p.enforcementLevel);
  return {
    id: p.id,
    type: 'policies',
    attributes: {
      name: p.name,
      description: p.description ?? null,
      kind: policyKind.toWord(p.kind),
      query: p.query ?? null,
      'enforcement-level': level,
      enforce: p.hasCode ? [{ path: p.enforcePath ?? defaultEnforcePath(p.name), mode: level }] : [],
      'policy-set-count': p.policySetCount,
      'created-at': isoTime(p.createdAt),
      'updated-at': timestampToIso(p.updatedAt),
    },
    relationships: {
      organization: toOne('organizations', p.organization),
      'policy-sets': toMany('policy-sets', p.policySetIds),
    },
    links: {
      self: `${API_PREFIX}/policies/${p.id}`,
      upload: `${API_PREFIX}/policies/${p.id}/upload`,
      download: `${API_PREFIX}/policies/${p.id}/download`,
    },
  };
}
