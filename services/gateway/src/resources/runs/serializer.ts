import { runStatus, type runsV1 } from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import { isoTime, selfLink, toMany, toOne } from '../../jsonapi/document.js';
import { serializeStatusTimestamps } from '../../jsonapi/status-timestamps.js';
import type { RUN } from './schema.js';

export type RunObject = Static<typeof RUN.schema>;

/**
 * The one serializer of `runs` (create, show, list, included). Relationship linkage is always
 * present: clients take the policy check ids from a polled run.
 */
export function serializeRun(r: runsV1.Run__Output): RunObject {
  return {
    id: r.id,
    type: 'runs',
    attributes: {
      status: runStatus.toWord(r.status),
      'status-timestamps': serializeStatusTimestamps(r.statusTimestamps),
      message: r.message,
      source: 'tfe-api',
      'plan-only': r.planOnly,
      'is-destroy': r.isDestroy,
      'auto-apply': false,
      'created-at': isoTime(r.createdAt),
      actions: {
        'is-cancelable': r.isCancelable,
        'is-confirmable': false,
        'is-discardable': r.isDiscardable,
        'is-force-cancelable': false,
      },
      permissions: {
        'can-apply': false,
        'can-cancel': r.canControl,
        'can-comment': r.canComment,
        'can-discard': r.canControl,
        'can-force-cancel': r.canControl,
        'can-force-execute': false,
      },
    },
    relationships: {
      workspace: toOne('workspaces', r.workspaceId),
      'configuration-version': toOne('configuration-versions', r.configurationVersionId),
      plan: toOne('plans', r.planId),
      'policy-checks': toMany('policy-checks', r.policyCheckIds),
      comments: toMany('comments', r.commentIds),
      'run-events': toMany('run-events', r.runEventIds),
      'task-stages': toMany('task-stages', r.taskStageIds),
    },
    links: selfLink(`/runs/${r.id}`),
  };
}
