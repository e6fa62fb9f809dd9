import type { runsV1 } from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import { selfLink, toOne } from '../../jsonapi/document.js';
import { serializeResultCount } from '../policy-evaluations/serializer.js';
import type { POLICY_SET_OUTCOME } from './schema.js';

export type PolicySetOutcomeObject = Static<typeof POLICY_SET_OUTCOME.schema>;

export function serializePolicySetOutcome(o: runsV1.PolicySetOutcome__Output): PolicySetOutcomeObject {
  const count = serializeResultCount(o.resultCount);
  return {
    id: o.id,
    type: 'policy-set-outcomes',
    attributes: {
      outcomes: o.outcomes.map((p) => ({
        policy_name: p.policyName,
        enforcement_level: p.enforcementLevel === 'advisory' ? 'advisory' : 'mandatory',
        query: p.query ?? null,
        status: p.status as 'passed' | 'failed' | 'errored',
        description: p.description ?? null,
        output: p.output.map((print) => ({ print })),
      })),
      error: o.error ?? null,
      overridable: o.overridable ?? null,
      'policy-set-name': o.policySetName,
      'policy-set-description': o.policySetDescription ?? null,
      'result-count': count,
      result_count: count,
    },
    relationships: { 'policy-evaluation': toOne('policy-evaluations', o.policyEvaluationId) },
    links: selfLink(`/policy-set-outcomes/${o.id}`),
  };
}
