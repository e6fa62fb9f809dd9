import type { adminorgsV1 } from '@policyhub/contracts';
import { PERMISSIONS } from '@policyhub/grpc-runtime';
import { type ResourceObject, selfLink, toMany, toOne } from '../../jsonapi/document.js';

export function serializeTeam(t: adminorgsV1.Team__Output): ResourceObject {
  return {
    id: t.id,
    type: 'teams',
    attributes: {
      name: t.name,
      'organization-access': Object.fromEntries(PERMISSIONS.map((p) => [p, t.permissions.includes(p)])),
      'users-count': t.userIds.length,
      visibility: t.visibility,
      'created-at': t.createdAt,
    },
    relationships: {
      organization: toOne('organizations', t.organization),
      users: toMany('users', t.userIds),
    },
    links: selfLink(`/teams/${t.id}`),
  };
}
