import type { adminorgsV1 } from '@policyhub/contracts';
import { type ResourceObject, selfLink } from '../../jsonapi/document.js';

/** The normal (non-admin) organization view. */
export function serializeOrganization(o: adminorgsV1.Organization__Output): ResourceObject {
  const can = (p: string) => o.permissions.includes(p);
  return {
    id: o.name,
    type: 'organizations',
    attributes: {
      name: o.name,
      'external-id': o.externalId,
      email: o.email,
      'created-at': o.createdAt,
      permissions: {
        'can-update': can('owners'),
        'can-destroy': can('owners'),
        'can-manage-policies': can('manage-policies'),
        'can-manage-policy-overrides': can('manage-policy-overrides'),
        'can-create-workspace': can('manage-workspaces'),
        'can-create-project': can('manage-projects'),
        'can-create-team': can('owners'),
      },
    },
    links: selfLink(`/organizations/${encodeURIComponent(o.name)}`),
  };
}
