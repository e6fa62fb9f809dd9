import { type runsV1, taskStageStatus } from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import { isoTime, selfLink, toMany, toOne } from '../../jsonapi/document.js';
import { serializeStatusTimestamps } from '../../jsonapi/status-timestamps.js';
import type { TASK_STAGE } from './schema.js';

export type TaskStageObject = Static<typeof TASK_STAGE.schema>;

/** The one serializer of `task-stages` (show, list, override, included). Run tasks do not exist here. */
export function serializeTaskStage(s: runsV1.TaskStage__Output): TaskStageObject {
  return {
    id: s.id,
    type: 'task-stages',
    attributes: {
      stage: 'post_plan',
      status: taskStageStatus.toWord(s.status),
      'status-timestamps': serializeStatusTimestamps(s.statusTimestamps),
      'created-at': isoTime(s.createdAt),
      'updated-at': isoTime(s.updatedAt),
      permissions: {
        'can-override-policy': s.canOverridePolicy,
        'can-override-tasks': false,
        'can-override': s.canOverridePolicy,
      },
      actions: { 'is-overridable': s.isOverridable },
    },
    relationships: {
      run: toOne('runs', s.runId),
      'policy-evaluations': toMany('policy-evaluations', s.policyEvaluationIds),
      'task-results': toMany('task-results', []),
    },
    links: selfLink(`/task-stages/${s.id}`),
  };
}
