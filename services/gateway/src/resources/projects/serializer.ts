import type { adminorgsV1 } from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import type { Principal } from '@policyhub/grpc-runtime';
import { callerPermissions } from '../../auth/caller-permissions.js';
import { isoTime, selfLink, toOne } from '../../jsonapi/document.js';
import type { PROJECT } from './schema.js';

export type ProjectObject = Static<typeof PROJECT.schema>;

/** `principal` is the caller: the `permissions` object describes what it may do. */
export function serializeProject(p: adminorgsV1.Project__Output, principal: Principal): ProjectObject {
  const caller = callerPermissions(principal, p.organization);
  return {
    id: p.id,
    type: 'projects',
    attributes: {
      name: p.name,
      description: p.description ?? null,
      'is-default': p.isDefault,
      'created-at': isoTime(p.createdAt),
      'updated-at': isoTime(p.updatedAt),
      permissions: {
        'can-read': true,
        'can-update': caller.can('manage-projects'),
        'can-destroy': caller.can('manage-projects'),
        'can-create-workspace': caller.can('manage-workspaces'),
        'can-move-workspace': caller.can('manage-workspaces'),
      },
    },
    relationships: { organization: toOne('organizations', p.organization) },
    links: selfLink(`/projects/${p.id}`),
  };
}
