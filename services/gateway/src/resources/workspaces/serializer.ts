import { type adminorgsV1, timestampToIso } from '@policyhub/contracts';
import { type ResourceObject, selfLink, toOne } from '../../jsonapi/document.js';

export function serializeWorkspace(w: adminorgsV1.Workspace__Output): ResourceObject {
  return {
    id: w.id,
    type: 'workspaces',
    attributes: {
      name: w.name,
      description: w.description ?? null,
      'created-at': timestampToIso(w.createdAt),
      'updated-at': timestampToIso(w.updatedAt),
    },
    relationships: {
      organization: toOne('organizations', w.organization),
      project: toOne('projects', w.projectId),
    },
    links: selfLink(`/workspaces/${w.id}`),
  };
}
