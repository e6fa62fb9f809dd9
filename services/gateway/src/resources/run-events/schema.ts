import { runEventAction } from '@policyhub/contracts';
import { Type } from '@sinclair/typebox';
import { defineResource, enumOf, hasOne, nullable, self, Timestamp } from '../../schemas/resources.js';

/** The wire shape of `run-events` (read only). */
export const RUN_EVENT = defineResource({
  $id: 'RunEvent',
  type: 'run-events',
  description: 'Something that happened to a run.',
  attributes: {
    action: enumOf(runEventAction.words),
    description: nullable(Type.String()),
    'created-at': Timestamp,
  },
  relationships: {
    run: hasOne('runs'),
    actor: hasOne('users'),
    comment: hasOne('comments'),
    'policy-check': hasOne('policy-checks'),
    'task-stage': hasOne('task-stages'),
  },
  links: self,
});
