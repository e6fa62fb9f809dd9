import { type adminorgsV1, organizationPermission } from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import { isoTime, selfLink } from '../../jsonapi/document.js';
import type { ORGANIZATION } from './schema.js';

export type OrganizationObject = Static<typeof ORGANIZATION.schema>;

/** The normal (non-admin) organization view. */
export function serializeOrganization(o: adminorgsV1.Organization__Output): OrganizationObject {
  const granted = new Set<string>(o.permissions.map((p) => organizationPermission.toWord(p)));
  const can = (p: string) => granted.has(p);
  const isOwner = o.callerIsOwner;
  return {
    id: o.name,
    type: 'organizations',
    attributes: {
      name: o.name,
      'external-id': o.externalId,
      email: o.email,
      'created-at': isoTime(o.createdAt),
      permissions: {
        'can-update': isOwner,
        'can-destroy': isOwner,
        'can-manage-policies': can('manage-policies'),
        'can-manage-policy-overrides': can('manage-policy-overrides'),
        'can-create-workspace': can('manage-workspaces'),
        'can-create-project': can('manage-projects'),
        'can-create-team': isOwner,
      },
    },
    links: selfLink(`/organizations/${encodeURIComponent(o.name)}`),
  };
}
