import { enforcementLevel } from '@policyhub/contracts';
import { Type } from '@sinclair/typebox';
import {
  Count,
  closed,
  defineResource,
  enumOf,
  field,
  hasMany,
  hasOne,
  nullable,
  self,
  Timestamp,
  write,
} from '../../schemas/resources.js';
import { policyKindField } from '../policy-sets/words.js';

const ENFORCEMENT_LEVELS = enforcementLevel.words;

/** The wire shape of `policies`: response, create and update bodies, vocabulary. */
export const POLICY = defineResource({
  $id: 'Policy',
  type: 'policies',
  description: 'A policy.',
  attributes: {
    name: field(Type.String(), { write: write.string({ required: true, present: true, maxLength: 200 }) }),
    description: field(nullable(Type.String()), { write: write.string({ maxLength: 10_000 }) }),
    kind: policyKindField,
    query: field(nullable(Type.String()), { write: write.string({ maxLength: 10_000 }) }),
    'enforcement-level': field(enumOf(ENFORCEMENT_LEVELS), { write: write.string({ maxLength: 50 }) }),
    enforce: field(
      Type.Array(closed({ path: Type.String(), mode: enumOf(ENFORCEMENT_LEVELS) }), {
        description:
          'Deprecated form of the enforcement level: one element once code was uploaded, empty before.',
      }),
      {
        write: write.described(
          'Deprecated: [{"path", "mode"}]; the first element carries the enforcement level.',
          { type: ['array', 'null'] },
        ),
      },
    ),
    'policy-set-count': Count,
    'created-at': Timestamp,
    'updated-at': nullable(
      Type.String({ ...Timestamp, description: 'The last code upload; null before the first one.' }),
    ),
  },
  relationships: { organization: hasOne('organizations'), 'policy-sets': hasMany('policy-sets') },
  links: { ...self, upload: Type.String(), download: Type.String() },
});
