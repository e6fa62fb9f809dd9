import { Type } from '@sinclair/typebox';
import { closed, defineResource, field, self, Timestamp, write } from '../../schemas/resources.js';

/** The wire shape of `organizations` as members see them: response, create and update bodies. */
export const ORGANIZATION = defineResource({
  $id: 'Organization',
  type: 'organizations',
  description: "An organization (a member's view).",
  attributes: {
    name: field(Type.String(), { write: write.string({ required: true, maxLength: 200 }) }),
    'external-id': Type.String(),
    email: field(Type.String(), { write: write.string({ required: true, maxLength: 254 }) }),
    'created-at': Timestamp,
    permissions: closed({
      'can-update': Type.Boolean(),
      'can-destroy': Type.Boolean(),
      'can-manage-policies': Type.Boolean(),
      'can-manage-policy-overrides': Type.Boolean(),
      'can-create-workspace': Type.Boolean(),
      'can-create-project': Type.Boolean(),
      'can-create-team': Type.Boolean(),
    }),
  },
  links: self,
});
