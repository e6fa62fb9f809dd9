import { taskStageStatus } from '@policyhub/contracts';
import { Type } from '@sinclair/typebox';
import {
  closed,
  defineResource,
  enumOf,
  hasMany,
  hasOne,
  self,
  statusTimestamps,
  Timestamp,
} from '../../schemas/resources.js';

/** The wire shape of `task-stages` (read only; overriding takes a justification, not a document). */
export const TASK_STAGE = defineResource({
  $id: 'TaskStage',
  type: 'task-stages',
  description: "A stage of a run (post_plan) holding the run's policy evaluations.",
  attributes: {
    stage: Type.Literal('post_plan'),
    status: enumOf(taskStageStatus.words),
    'status-timestamps': statusTimestamps('`pending-at`, `running-at`, `passed-at`, …'),
    'created-at': Timestamp,
    'updated-at': Timestamp,
    permissions: closed({
      'can-override-policy': Type.Boolean(),
      'can-override-tasks': Type.Boolean(),
      'can-override': Type.Boolean(),
    }),
    actions: closed({ 'is-overridable': Type.Boolean() }),
  },
  relationships: {
    run: hasOne('runs'),
    'policy-evaluations': hasMany('policy-evaluations'),
    'task-results': hasMany('task-results'),
  },
  links: self,
});
