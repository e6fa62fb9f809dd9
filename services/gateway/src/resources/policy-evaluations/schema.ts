import { evaluationPolicyKind, policyEvaluationStatus } from '@policyhub/contracts';
import {
  Count,
  closed,
  defineResource,
  enumOf,
  field,
  hasOne,
  self,
  statusTimestamps,
  Timestamp,
} from '../../schemas/resources.js';
import { wireKind } from '../../vocabulary.js';

/** Counts of policies by result (upstream's `result-count`). */
export const RESULT_COUNT = closed({
  'advisory-failed': Count,
  'mandatory-failed': Count,
  passed: Count,
  errored: Count,
});

/** The wire shape of `policy-evaluations`: every applicable set of one kind in a task stage. */
export const POLICY_EVALUATION = defineResource({
  $id: 'PolicyEvaluation',
  type: 'policy-evaluations',
  description:
    "The evaluation of a run's applicable policy sets of one kind (result-count is zero until decided).",
  attributes: {
    status: enumOf(policyEvaluationStatus.words),
    'policy-kind': field(enumOf(evaluationPolicyKind.words, 'Policy kind.'), {
      wording: {
        schema: (names) => enumOf(Object.values(names.policyKinds), 'Policy kind.'),
        value: (kind, names) => wireKind(kind as string, names),
      },
    }),
    'status-timestamps': statusTimestamps('`queued-at`, `running-at`, `passed-at`, …'),
    'result-count': RESULT_COUNT,
    'created-at': Timestamp,
    'updated-at': Timestamp,
  },
  relationships: { 'policy-attachable': hasOne('task-stages') },
  links: self,
});
