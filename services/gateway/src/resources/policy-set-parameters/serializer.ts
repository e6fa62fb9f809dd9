import type { policysetsV1 } from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import { API_PREFIX, toOne } from '../../jsonapi/document.js';
import type { POLICY_SET_PARAMETER } from './schema.js';

export type PolicySetParameterObject = Static<typeof POLICY_SET_PARAMETER.schema>;

/** The one serializer of `vars` (create, show, list, update): a sensitive value is null. */
export function serializePolicySetParameter(
  p: policysetsV1.PolicySetParameter__Output,
): PolicySetParameterObject {
  return {
    id: p.id,
    type: 'vars',
    attributes: {
      key: p.key,
      value: p.sensitive ? null : (p.value ?? ''),
      category: 'policy-set',
      sensitive: p.sensitive,
    },
    relationships: { configurable: toOne('policy-sets', p.policySetId) },
    links: { self: `${API_PREFIX}/policy-sets/${p.policySetId}/parameters/${p.id}` },
  };
}
