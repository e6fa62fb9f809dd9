import type { adminorgsV1 } from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import { callerPermissions } from '../../auth/caller-permissions.js';
import type { Principal } from '@policyhub/grpc-runtime';
import { isoTime, selfLink, toOne } from '../../jsonapi/document.js';
import type { WORKSPACE } from './schema.js';

export type WorkspaceObject = Static<typeof WORKSPACE.schema>;

/**
 * `principal` is the caller: the `permissions` object describes what it may do. `currentRuns`
 * (workspace id -> run id), when the caller included `current_run`, adds the `current-run`
 * relationship (null for a workspace without one).
 */
export function serializeWorkspace(
  w: adminorgsV1.Workspace__Output,
  principal: Principal,
  currentRuns?: ReadonlyMap<string, string>,
): WorkspaceObject {
  const caller = callerPermissions(principal, w.organization);
  const manage = caller.can('manage-workspaces');
  return {
    id: w.id,
    type: 'workspaces',
    attributes: {
      name: w.name,
      description: w.description ?? null,
      'created-at': isoTime(w.createdAt),
      'updated-at': isoTime(w.updatedAt),
      permissions: {
        'can-update': manage,
        'can-destroy': manage,
        'can-queue-run': manage,
        // Every member reads a workspace's settings.
        'can-read-settings': true,
        'can-update-variable': false,
        'can-lock': false,
        'can-unlock': false,
        'can-force-unlock': false,
        'can-queue-apply': false,
        'can-queue-destroy': false,
      },
    },
    relationships: {
      organization: toOne('organizations', w.organization),
      project: toOne('projects', w.projectId),
      ...(currentRuns ? { 'current-run': toOne('runs', currentRuns.get(w.id)) } : {}),
    },
    links: selfLink(`/workspaces/${w.id}`),
  };
}
