import { type adminorgsV1, timestampToIso } from '@policyhub/contracts';
import { API_PREFIX, type ResourceObject, selfLink, toMany } from '../../jsonapi/document.js';
import { CANONICAL } from '../../vocabulary.js';

export const adminOrganizationPath = (name: string) => `/admin/organizations/${encodeURIComponent(name)}`;

/**
 * The one serializer of the site-admin view of `organizations` (admin list, show, update, consumer
 * lists). Unset timeouts and workspace limit are null (the instance default applies: apply 24h,
 * plan 2h, no workspace limit); each timeout is emitted under its canonical name and its
 * deprecated alias, which always carry the same value.
 */
export function serializeAdminOrganization(o: adminorgsV1.Organization__Output): ResourceObject {
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
      'created-at': timestampToIso(o.createdAt),
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
