import type { adminorgsV1 } from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import { API_PREFIX, isoTime, selfLink, toMany } from '../../jsonapi/document.js';
import { CANONICAL } from '../../vocabulary.js';
import type { ADMIN_ORGANIZATION } from './schema.js';

export type AdminOrganizationObject = Static<typeof ADMIN_ORGANIZATION.schema>;

export const adminOrganizationPath = (name: string) => `/admin/organizations/${encodeURIComponent(name)}`;

/**
 * The one serializer of the site-admin view of `organizations` (admin list, show, update, consumer
 * lists). Unset timeouts and workspace limit are null (the instance default applies: apply 24h,
 * plan 2h, no workspace limit); each timeout is emitted under its canonical name and its
 * deprecated alias, which always carry the same value.
 */
export function serializeAdminOrganization(o: adminorgsV1.Organization__Output): AdminOrganizationObject {
  const path = adminOrganizationPath(o.name);
  const applyTimeout = o.applyTimeout ?? null;
  const planTimeout = o.planTimeout ?? null;
  return {
    id: o.name,
    type: 'organizations',
    attributes: {
      name: o.name,
      'external-id': o.externalId,
      'notification-email': o.email,
      'created-at': isoTime(o.createdAt),
      'access-beta-tools': o.accessBetaTools,
      'is-disabled': o.isDisabled,
      'sso-enabled': o.ssoEnabled,
      'global-module-sharing': o.globalModuleSharing,
      'global-provider-sharing': o.globalProviderSharing,
      [CANONICAL.workerSudoEnabled]: o.workerSudoEnabled,
      'workspace-limit': o.workspaceLimit ?? null,
      'apply-timeout': applyTimeout,
      'plan-timeout': planTimeout,
      [CANONICAL.applyTimeoutAlias]: applyTimeout,
      [CANONICAL.planTimeoutAlias]: planTimeout,
    },
    relationships: {
      owners: toMany('users', o.ownerIds),
      'module-consumers': { links: { related: `${API_PREFIX}${path}/relationships/module-consumers` } },
      'provider-consumers': { links: { related: `${API_PREFIX}${path}/relationships/provider-consumers` } },
    },
    links: selfLink(path),
  };
}
