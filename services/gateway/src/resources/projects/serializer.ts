import { type adminorgsV1, timestampToIso } from '@policyhub/contracts';
import { type ResourceObject, selfLink, toOne } from '../../jsonapi/document.js';

export function serializeProject(p: adminorgsV1.Project__Output): ResourceObject {
  return {
    id: p.id,
    type: 'projects',
    attributes: {
      name: p.name,
      description: p.description ?? null,
      'is-default': p.isDefault,
      'created-at': timestampToIso(p.createdAt),
      'updated-at': timestampToIso(p.updatedAt),
    },
    relationships: { organization: toOne('organizations', p.organization) },
    links: selfLink(`/projects/${p.id}`),
  };
}
