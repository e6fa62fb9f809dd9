import { Type } from '@sinclair/typebox';
import { defineResource, field, hasOne, nullable, self, Timestamp, write } from '../../schemas/resources.js';

/** The wire shape of `workspaces`: response, create and update bodies. */
export const WORKSPACE = defineResource({
  $id: 'Workspace',
  type: 'workspaces',
  description: 'A workspace.',
  attributes: {
    name: field(Type.String(), { write: write.string({ required: true, maxLength: 200 }) }),
    description: field(nullable(Type.String()), { write: write.string({ maxLength: 1000 }) }),
    'created-at': Timestamp,
    'updated-at': Timestamp,
  },
  relationships: { organization: hasOne('organizations'), project: hasOne('projects', { writable: true }) },
  links: self,
});
