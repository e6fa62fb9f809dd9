import type { adminorgsV1 } from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import { isoTime, selfLink, toOne } from '../../jsonapi/document.js';
import type { WORKSPACE } from './schema.js';

export type WorkspaceObject = Static<typeof WORKSPACE.schema>;

export function serializeWorkspace(w: adminorgsV1.Workspace__Output): WorkspaceObject {
  return {
    id: w.id,
    type: 'workspaces',
    attributes: {
      name: w.name,
      description: w.description ?? null,
      'created-at': isoTime(w.createdAt),
      'updated-at': isoTime(w.updatedAt),
    },
    relationships: {
      organization: toOne('organizations', w.organization),
      project: toOne('projects', w.projectId),
    },
    links: selfLink(`/workspaces/${w.id}`),
  };
}
