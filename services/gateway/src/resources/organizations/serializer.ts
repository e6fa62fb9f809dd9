import { type adminorgsV1, organizationPermission, timestampToIso } from '@policyhub/contracts';
import { type ResourceObject, selfLink } from '../../jsonapi/document.js';

/** The normal (non-admin) organization view. */
export function serializeOrganization(o: adminorgsV1.Organization__Output): ResourceObject {
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
      'created-at': timestampToIso(o.createdAt),
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
