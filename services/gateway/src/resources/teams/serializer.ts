import { type adminorgsV1, organizationPermission, teamVisibility } from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import { isoTime, selfLink, toMany, toOne } from '../../jsonapi/document.js';
import type { TEAM } from './schema.js';

export type TeamObject = Static<typeof TEAM.schema>;

export function serializeTeam(t: adminorgsV1.Team__Output): TeamObject {
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
      'created-at': isoTime(t.createdAt),
    },
    relationships: {
      organization: toOne('organizations', t.organization),
      users: toMany('users', t.userIds),
    },
    links: selfLink(`/teams/${t.id}`),
  };
}
