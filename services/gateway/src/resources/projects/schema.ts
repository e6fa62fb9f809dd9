import { Type } from '@sinclair/typebox';
import {
  closed,
  defineResource,
  field,
  hasOne,
  nullable,
  self,
  Timestamp,
  write,
} from '../../schemas/resources.js';

/** The wire shape of `projects`: response, create and update bodies. */
export const PROJECT = defineResource({
  $id: 'Project',
  type: 'projects',
  description: 'A project.',
  attributes: {
    name: field(Type.String(), { write: write.string({ required: true, maxLength: 200 }) }),
    description: field(nullable(Type.String()), { write: write.string({ maxLength: 1000 }) }),
    'is-default': Type.Boolean(),
    'created-at': Timestamp,
    'updated-at': Timestamp,
    permissions: closed({
      'can-read': Type.Boolean(),
      'can-update': Type.Boolean(),
      'can-destroy': Type.Boolean(),
      'can-create-workspace': Type.Boolean(),
      'can-move-workspace': Type.Boolean(),
    }),
  },
  relationships: { organization: hasOne('organizations') },
  links: self,
});
