import { runEventAction, type runsV1, timestampToIso } from '@policyhub/contracts';
import { type ResourceObject, selfLink, toOne } from '../../jsonapi/document.js';

/** The one serializer of `run-events`: what happened to a run (created, commented, overridden, ...). */
export function serializeRunEvent(e: runsV1.RunEvent__Output): ResourceObject {
  return {
    id: e.id,
    type: 'run-events',
    attributes: {
      action: runEventAction.toWord(e.action),
      description: e.description ?? null,
      'created-at': timestampToIso(e.createdAt),
    },
    relationships: {
      run: toOne('runs', e.runId),
      actor: toOne('users', e.actorUserId),
      comment: toOne('comments', e.commentId),
      'policy-check': toOne('policy-checks', e.policyCheckId),
    },
    links: selfLink(`/run-events/${e.id}`),
  };
}
