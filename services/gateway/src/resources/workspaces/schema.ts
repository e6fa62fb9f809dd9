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
    // Upstream's set; what PolicyHub has no operation for (locks, variables, applies) is false.
    permissions: closed({
      'can-update': Type.Boolean(),
      'can-destroy': Type.Boolean(),
      'can-queue-run': Type.Boolean(),
      'can-read-settings': Type.Boolean(),
      'can-update-variable': Type.Boolean(),
      'can-lock': Type.Boolean(),
      'can-unlock': Type.Boolean(),
      'can-force-unlock': Type.Boolean(),
      'can-queue-apply': Type.Boolean(),
      'can-queue-destroy': Type.Boolean(),
    }),
  },
  relationships: {
    organization: hasOne('organizations'),
    project: hasOne('projects', { writable: true }),
    'current-run': hasOne('runs'),
  },
  omittable: {
    members: ['current-run'],
    description:
      '`current-run` (the newest run that is not plan-only, or null) is there when `include=current_run` asks for it.',
  },
  links: self,
});
