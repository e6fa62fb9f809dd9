import { teamVisibility } from '@policyhub/contracts';
import { PERMISSIONS } from '@policyhub/grpc-runtime';
import { Type } from '@sinclair/typebox';
import {
  Count,
  closed,
  defineResource,
  enumOf,
  field,
  hasMany,
  hasOne,
  self,
  Timestamp,
  write,
} from '../../schemas/resources.js';

/** The wire shape of `teams`: response and create body. */
export const TEAM = defineResource({
  $id: 'Team',
  type: 'teams',
  description: 'A team.',
  attributes: {
    name: field(Type.String(), { write: write.string({ required: true, maxLength: 90 }) }),
    'organization-access': field(closed(Object.fromEntries(PERMISSIONS.map((p) => [p, Type.Boolean()]))), {
      write: write.object('Permission name → true or false; the granted permissions.'),
    }),
    'users-count': Count,
    visibility: field(enumOf(teamVisibility.words), {
      write: write.string({ maxLength: 20, description: 'secret or organization.' }),
    }),
    'created-at': Timestamp,
    // Upstream's set; teams are not updated after creation here, and have no tokens.
    permissions: closed({
      'can-update-membership': Type.Boolean(),
      'can-destroy': Type.Boolean(),
      'can-update-organization-access': Type.Boolean(),
      'can-update-api-token': Type.Boolean(),
      'can-update-visibility': Type.Boolean(),
    }),
  },
  relationships: { organization: hasOne('organizations'), users: hasMany('users') },
  links: self,
});
