import { type adminorgsV1, organizationPermission, teamVisibility, toTimestamp } from '@policyhub/contracts';
import { OWNER } from '@policyhub/grpc-runtime';
import type { TokenRow, UserRow } from '../db/identity-repository.js';
import type { OrganizationRow, ProjectRow, TeamRow, WorkspaceRow } from '../db/tenancy-repository.js';

/** Descriptions are stored as '' when there is none (NOT NULL columns); on the wire they are unset. */
const descriptionOf = (stored: string): string | undefined => (stored === '' ? undefined : stored);

/** Stored permission words as enum values (OWNER, a membership's marker, travels as its own flag). */
export const toPermissionValues = (words: readonly string[]): adminorgsV1.OrganizationPermission[] =>
  words.filter((w) => w !== OWNER).map((w) => organizationPermission.fromKnownWord(w));

export const toUser = (r: UserRow): adminorgsV1.User => ({
  id: r.id,
  username: r.username,
  email: r.email,
  isSiteAdmin: r.is_site_admin,
  createdAt: toTimestamp(r.created_at),
});

/** A token as listed and shown: never its secret (only CreateAuthenticationToken returns that). */
export const toAuthenticationToken = (r: TokenRow): adminorgsV1.AuthenticationToken => ({
  id: r.id,
  userId: r.user_id ?? '',
  createdBy: r.created_by ?? r.user_id ?? '',
  teamId: r.team_id ?? undefined,
  organization: r.organization ?? undefined,
  description: descriptionOf(r.description),
  createdAt: toTimestamp(r.created_at),
  lastUsedAt: r.last_used_at === null ? null : toTimestamp(r.last_used_at),
  expiredAt: r.expired_at === null ? null : toTimestamp(r.expired_at),
});

/** `callerAccess`: the caller's permission words in the organization, with OWNER when an owner. */
export const toOrganization = (
  r: OrganizationRow,
  callerAccess: readonly string[] = [],
): adminorgsV1.Organization => ({
  name: r.name,
  externalId: r.external_id,
  email: r.email,
  createdAt: toTimestamp(r.created_at),
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
  permissions: toPermissionValues(callerAccess),
  callerIsOwner: callerAccess.includes(OWNER),
  ownerIds: r.owner_ids,
});

export const toTeam = (r: TeamRow): adminorgsV1.Team => ({
  id: r.id,
  organization: r.organization,
  name: r.name,
  permissions: toPermissionValues(r.permissions),
  userIds: r.user_ids,
  createdAt: toTimestamp(r.created_at),
  visibility: teamVisibility.fromKnownWord(r.visibility),
});

export const toProject = (r: ProjectRow): adminorgsV1.Project => ({
  id: r.id,
  organization: r.organization,
  name: r.name,
  description: descriptionOf(r.description),
  isDefault: r.is_default,
  createdAt: toTimestamp(r.created_at),
  updatedAt: toTimestamp(r.updated_at),
});

export const toWorkspace = (r: WorkspaceRow): adminorgsV1.Workspace => ({
  id: r.id,
  organization: r.organization,
  organizationId: r.organization_id,
  projectId: r.project_id,
  name: r.name,
  description: descriptionOf(r.description),
  createdAt: toTimestamp(r.created_at),
  updatedAt: toTimestamp(r.updated_at),
});
