// The enum tables of proto/policyhub/adminorgs (see ../enum-mapping.ts). One exported mapping per enum,
// named after the enum in lowerCamelCase (e.g. `export const policySetKind = enumMapping(...)`).
import { type EnumWords, enumMapping } from '../enum-mapping.js';
import type { OrganizationPermission } from '../generated/policyhub/adminorgs/v1/OrganizationPermission.js';
import type { PrincipalKind } from '../generated/policyhub/adminorgs/v1/PrincipalKind.js';
import type { TeamVisibility } from '../generated/policyhub/adminorgs/v1/TeamVisibility.js';
import type { WorkspaceOrder } from '../generated/policyhub/adminorgs/v1/WorkspaceOrder.js';

/** A team's `organization-access` permissions (the words @policyhub/permissions checks). */
export const organizationPermission = enumMapping('OrganizationPermission', {
  ORGANIZATION_PERMISSION_MANAGE_POLICIES: 'manage-policies',
  ORGANIZATION_PERMISSION_MANAGE_POLICY_OVERRIDES: 'manage-policy-overrides',
  ORGANIZATION_PERMISSION_MANAGE_WORKSPACES: 'manage-workspaces',
  ORGANIZATION_PERMISSION_MANAGE_PROJECTS: 'manage-projects',
  ORGANIZATION_PERMISSION_READ_WORKSPACES: 'read-workspaces',
  ORGANIZATION_PERMISSION_READ_RUNS: 'read-runs',
} as const satisfies EnumWords<OrganizationPermission>);

/** A team's `visibility`. */
export const teamVisibility = enumMapping('TeamVisibility', {
  TEAM_VISIBILITY_SECRET: 'secret',
  TEAM_VISIBILITY_ORGANIZATION: 'organization',
} as const satisfies EnumWords<TeamVisibility>);

/** Whom a principal stands for (the `kind` of @policyhub/permissions' Principal). */
export const principalKind = enumMapping('PrincipalKind', {
  PRINCIPAL_KIND_USER: 'user',
  PRINCIPAL_KIND_TEAM: 'team',
  PRINCIPAL_KIND_ORGANIZATION: 'organization',
} as const satisfies EnumWords<PrincipalKind>);

/** The `sort` of a workspace list (upstream's words; `-` for descending). */
export const workspaceOrder = enumMapping('WorkspaceOrder', {
  WORKSPACE_ORDER_NAME: 'name',
  WORKSPACE_ORDER_NAME_DESCENDING: '-name',
} as const satisfies EnumWords<WorkspaceOrder>);
