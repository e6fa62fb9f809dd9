import type { adminorgsV1 } from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import { isoTime, selfLink, toOne } from '../../jsonapi/document.js';
import type { PROJECT } from './schema.js';

export type ProjectObject = Static<typeof PROJECT.schema>;

export function serializeProject(p: adminorgsV1.Project__Output): ProjectObject {
  return {
    id: p.id,
    type: 'projects',
    attributes: {
      name: p.name,
      description: p.description ?? null,
      'is-default': p.isDefault,
      'created-at': isoTime(p.createdAt),
      'updated-at': isoTime(p.updatedAt),
    },
    relationships: { organization: toOne('organizations', p.organization) },
    links: selfLink(`/projects/${p.id}`),
  };
}
