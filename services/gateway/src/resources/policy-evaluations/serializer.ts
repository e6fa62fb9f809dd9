import { evaluationPolicyKind, policyEvaluationStatus, type runsV1 } from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import { isoTime, selfLink, toOne } from '../../jsonapi/document.js';
import { serializeStatusTimestamps } from '../../jsonapi/status-timestamps.js';
import type { POLICY_EVALUATION } from './schema.js';

export type PolicyEvaluationObject = Static<typeof POLICY_EVALUATION.schema>;

export const serializeResultCount = (c: runsV1.PolicyResultCount__Output | null | undefined) => ({
  'advisory-failed': c?.advisoryFailed ?? 0,
  'mandatory-failed': c?.mandatoryFailed ?? 0,
  passed: c?.passed ?? 0,
  errored: c?.errored ?? 0,
});

/** The one serializer of `policy-evaluations`; the kind in canonical words (the profile renames it). */
export function serializePolicyEvaluation(e: runsV1.PolicyEvaluation__Output): PolicyEvaluationObject {
  return {
    id: e.id,
    type: 'policy-evaluations',
    attributes: {
      status: policyEvaluationStatus.toWord(e.status),
      'policy-kind': evaluationPolicyKind.toWord(e.policyKind),
      'status-timestamps': serializeStatusTimestamps(e.statusTimestamps),
      'result-count': serializeResultCount(e.resultCount),
      'created-at': isoTime(e.createdAt),
      'updated-at': isoTime(e.updatedAt),
    },
    relationships: { 'policy-attachable': toOne('task-stages', e.taskStageId) },
    links: selfLink(`/policy-evaluations/${e.id}`),
  };
}
