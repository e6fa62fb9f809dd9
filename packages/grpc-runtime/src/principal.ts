import type * as grpc from '@grpc/grpc-js';

/** Permissions a team can grant in an organization (DESIGN §5). */
export const PERMISSIONS = [
  'manage-policies',
  'manage-policy-overrides',
  'manage-workspaces',
  'manage-projects',
  'read-workspaces',
  'read-runs',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export interface Principal {
  userId: string;
  username: string;
  isSiteAdmin: boolean;
  /** organization name -> permissions; disabled organizations are absent for non-admins. */
  memberships: Record<string, string[]>;
}

const PRINCIPAL_KEY = 'x-policyhub-principal';

export function writePrincipal(metadata: grpc.Metadata, principal: Principal): void {
  metadata.set(PRINCIPAL_KEY, Buffer.from(JSON.stringify(principal)).toString('base64url'));
}

/** The caller of an RPC, or undefined for internal service-to-service calls without a user. */
export function readPrincipal(metadata: grpc.Metadata): Principal | undefined {
  const raw = metadata.get(PRINCIPAL_KEY)[0];
  if (typeof raw !== 'string') return undefined;
  try {
    return JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Principal;
  } catch {
    return undefined;
  }
}

/** Whether the principal may act with `permission` in `organization`. Site admins may do anything. */
export function hasPermission(
  principal: Principal | undefined,
  organization: string,
  permission: Permission,
): boolean {
  if (!principal) return false;
  if (principal.isSiteAdmin) return true;
  return principal.memberships[organization]?.includes(permission) ?? false;
}

/** Whether the principal can see the organization at all (member of a team there, or site admin). */
export function canAccessOrganization(principal: Principal | undefined, organization: string): boolean {
  if (!principal) return false;
  return principal.isSiteAdmin || principal.memberships[organization] !== undefined;
}
