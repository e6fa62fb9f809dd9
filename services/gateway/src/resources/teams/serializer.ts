import {
  type adminorgsV1,
  organizationPermission,
  teamVisibility,
  timestampToIso,
} from '@policyhub/contracts';
import { type ResourceObject, selfLink, toMany, toOne } from '../../jsonapi/document.js';

export function serializeTeam(t: adminorgsV1.Team__Output): ResourceObject {
  return {
    id: t.id,
    type: 'teams',
    attributes: {
      name: t.name,
      'organization-access': Object.fromEntries(
        organizationPermission.words.map((w) => [
          w,
          t.permissions.includes(organizationPermission.fromKnownWord(w)),
        ]),
      ),
      'users-count': t.userIds.length,
      visibility: teamVisibility.toWord(t.visibility),
      'created-at': timestampToIso(t.createdAt),
    },
    relationships: {
      organization: toOne('organizations', t.organization),
      users: toMany('users', t.userIds),
    },
    links: selfLink(`/teams/${t.id}`),
  };
}
