import { runEventAction, type runsV1 } from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import { isoTime, selfLink, toOne } from '../../jsonapi/document.js';
import type { RUN_EVENT } from './schema.js';

export type RunEventObject = Static<typeof RUN_EVENT.schema>;

/** The one serializer of `run-events`: what happened to a run (created, commented, overridden, ...). */
export function serializeRunEvent(e: runsV1.RunEvent__Output): RunEventObject {
  return {
    id: e.id,
    type: 'run-events',
    attributes: {
      action: runEventAction.toWord(e.action),
      description: e.description ?? null,
      'created-at': isoTime(e.createdAt),
    },
    relationships: {
      run: toOne('runs', e.runId),
      actor: toOne('users', e.actorUserId),
      comment: toOne('comments', e.commentId),
      'policy-check': toOne('policy-checks', e.policyCheckId),
      'task-stage': toOne('task-stages', e.taskStageId),
    },
    links: selfLink(`/run-events/${e.id}`),
  };
}
