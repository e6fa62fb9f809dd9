import { Type } from '@sinclair/typebox';
import { defineResource, enumOf, field, hasOne, nullable, self, write } from '../../schemas/resources.js';

/**
 * The wire shape of policy set parameters: upstream's `vars` resource with category
 * `policy-set`, related to its set as `configurable`.
 */
export const POLICY_SET_PARAMETER = defineResource({
  $id: 'PolicySetParameter',
  type: 'vars',
  description:
    'A policy set parameter (a Sentinel `param` of the set). A sensitive one never answers its value (null).',
  attributes: {
    key: field(Type.String(), { write: write.string({ required: true, present: true, maxLength: 128 }) }),
    value: field(nullable(Type.String({ description: 'null once the parameter is sensitive.' })), {
      write: write.string({ maxLength: 65_536, description: 'Default "". Never answered once sensitive.' }),
    }),
    category: field(enumOf(['policy-set'], 'Always `policy-set`.'), {
      write: write.string({ maxLength: 50, description: '`policy-set` (the default and only category).' }),
    }),
    sensitive: field(Type.Boolean(), {
      write: write.boolean('Write-once: once true, the value is never answered and it cannot be made false.'),
    }),
  },
  relationships: { configurable: hasOne('policy-sets') },
  links: self,
});
