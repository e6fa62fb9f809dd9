import { Type } from '@sinclair/typebox';
import { closed, defineResource, enumOf, hasOne, nullable, self } from '../../schemas/resources.js';
import { RESULT_COUNT } from '../policy-evaluations/schema.js';

/** One policy's result, with upstream's snake_case members. */
const OUTCOME = closed({
  policy_name: Type.String(),
  enforcement_level: enumOf(['advisory', 'mandatory'] as const),
  query: nullable(Type.String()),
  status: enumOf(['passed', 'failed', 'errored'] as const),
  description: nullable(Type.String()),
  output: Type.Array(closed({ print: Type.String() }), {
    description: 'What explains the result: violation messages, print() output, the error.',
  }),
});

/** The wire shape of `policy-set-outcomes`: one policy set's results in a policy evaluation. */
export const POLICY_SET_OUTCOME = defineResource({
  $id: 'PolicySetOutcome',
  type: 'policy-set-outcomes',
  description: "One policy set's results in a policy evaluation.",
  attributes: {
    outcomes: Type.Array(OUTCOME),
    error: nullable(Type.String({ description: 'Why the set could not be evaluated.' })),
    overridable: nullable(Type.Boolean()),
    'policy-set-name': Type.String(),
    'policy-set-description': nullable(Type.String()),
    'result-count': RESULT_COUNT,
    // The Go client reads this spelling.
    result_count: RESULT_COUNT,
  },
  relationships: { 'policy-evaluation': hasOne('policy-evaluations') },
  links: self,
});
