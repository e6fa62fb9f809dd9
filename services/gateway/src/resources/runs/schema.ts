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
    'is-destroy': field(Type.Boolean(), {
      write: write.boolean(
        'A destroy run: its plan destroys every resource of the workspace. Default false.',
      ),
    }),
    'auto-apply': Type.Literal(false),
    'created-at': Timestamp,
    actions: closed({
      'is-cancelable': Type.Boolean(),
      'is-confirmable': Type.Literal(false),
      'is-discardable': Type.Boolean(),
      // A cancel ends a run at once here: no run waits to be force-canceled.
      'is-force-cancelable': Type.Literal(false),
    }),
    // Upstream's set; runs are never applied here.
    permissions: closed({
      'can-apply': Type.Literal(false),
      'can-cancel': Type.Boolean(),
      'can-comment': Type.Boolean(),
      'can-discard': Type.Boolean(),
      'can-force-cancel': Type.Boolean(),
      'can-force-execute': Type.Literal(false),
    }),
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
