import { runStatus } from '@policyhub/contracts';
import { Type } from '@sinclair/typebox';
import {
  closed,
  defineResource,
  enumOf,
  field,
  hasMany,
  hasOne,
  self,
  statusTimestamps,
  Timestamp,
  write,
} from '../../schemas/resources.js';

/** The wire shape of `runs`: response and create body. */
export const RUN = defineResource({
  $id: 'Run',
  type: 'runs',
  description: 'A run.',
  attributes: {
    status: enumOf(runStatus.words),
    'status-timestamps': statusTimestamps('`pending-at`, `policy-checked-at`, …'),
    message: field(Type.String(), { write: write.string({ maxLength: 10_000 }) }),
    source: Type.Literal('tfe-api'),
    'plan-only': field(Type.Boolean(), { write: write.boolean() }),
    'is-destroy': Type.Literal(false),
    'auto-apply': Type.Literal(false),
    'created-at': Timestamp,
    actions: closed({
      'is-cancelable': Type.Boolean(),
      'is-confirmable': Type.Literal(false),
      'is-discardable': Type.Literal(false),
      'is-force-cancelable': Type.Literal(false),
    }),
    permissions: closed({ 'can-comment': Type.Boolean() }),
  },
  relationships: {
    workspace: hasOne('workspaces', { writable: true }),
    'configuration-version': hasOne('configuration-versions', { writable: true }),
    plan: hasOne('plans'),
    'policy-checks': hasMany('policy-checks'),
    comments: hasMany('comments'),
    'run-events': hasMany('run-events'),
    'task-stages': hasMany('task-stages'),
  },
  links: self,
});
