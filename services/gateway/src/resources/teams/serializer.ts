import { type adminorgsV1, organizationPermission, teamVisibility } from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import type { Principal } from '@policyhub/grpc-runtime';
import { callerPermissions } from '../../auth/caller-permissions.js';
import { isoTime, selfLink, toMany, toOne } from '../../jsonapi/document.js';
import type { TEAM } from './schema.js';

export type TeamObject = Static<typeof TEAM.schema>;

/** `principal` is the caller: the `permissions` object describes what it may do. */
export function serializeTeam(t: adminorgsV1.Team__Output, principal: Principal): TeamObject {
  // Owners manage teams (create, delete, change membership).
  const owner = callerPermissions(principal, t.organization).isOwner;
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
      permissions: {
        'can-update-membership': owner,
        'can-destroy': owner,
        'can-update-organization-access': false,
        'can-update-api-token': false,
        'can-update-visibility': false,
      },
    },
    relationships: {
      organization: toOne('organizations', t.organization),
      users: toMany('users', t.userIds),
    },
    links: selfLink(`/teams/${t.id}`),
  };
}
