import type { adminorgsV1 } from '@policyhub/contracts';
import type { TokenRow, UserRow } from '../db/identity-repository.js';
import type { OrganizationRow, ProjectRow, TeamRow, WorkspaceRow } from '../db/tenancy-repository.js';

export const toUser = (r: UserRow): adminorgsV1.User => ({
  id: r.id,
  username: r.username,
  email: r.email,
  isSiteAdmin: r.is_site_admin,
  createdAt: r.created_at,
});

/** A token as listed and shown: never its secret (only CreateAuthenticationToken returns that). */
export const toAuthenticationToken = (r: TokenRow): adminorgsV1.AuthenticationToken => ({
  id: r.id,
  userId: r.user_id,
  description: r.description,
  createdAt: r.created_at,
  token: '',
  lastUsedAt: r.last_used_at ?? undefined,
});

export const toOrganization = (r: OrganizationRow, permissions: string[] = []): adminorgsV1.Organization => ({
  name: r.name,
  externalId: r.external_id,
  email: r.email,
  createdAt: r.created_at,
  isDisabled: r.is_disabled,
  accessBetaTools: r.access_beta_tools,
  globalModuleSharing: r.global_module_sharing,
  globalProviderSharing: r.global_provider_sharing,
  ssoEnabled: r.sso_enabled,
  workerSudoEnabled: r.worker_sudo_enabled,
  workspaceLimit: r.workspace_limit ?? undefined,
  applyTimeout: r.apply_timeout ?? undefined,
  planTimeout: r.plan_timeout ?? undefined,
  isFreeTier: r.is_free_tier,
  permissions,
  ownerIds: r.owner_ids,
});

export const toTeam = (r: TeamRow): adminorgsV1.Team => ({
  id: r.id,
  organization: r.organization,
  name: r.name,
  permissions: r.permissions,
  userIds: r.user_ids,
  createdAt: r.created_at,
  visibility: r.visibility,
});

export const toProject = (r: ProjectRow): adminorgsV1.Project => ({
  id: r.id,
  organization: r.organization,
  name: r.name,
  description: r.description,
  isDefault: r.is_default,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export const toWorkspace = (r: WorkspaceRow): adminorgsV1.Workspace => ({
  id: r.id,
  organization: r.organization,
  organizationId: r.organization_id ?? '',
  projectId: r.project_id,
  name: r.name,
  description: r.description,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});
