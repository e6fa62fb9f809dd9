import { notFound } from '@policyhub/errors';
import { hasPermission, type Permission, type Principal } from '@policyhub/permissions';

/** The permission everything here needs (and the one an upload URL's creator must keep). */
export const MANAGE_POLICIES = 'manage-policies' satisfies Permission;

/**
 * Everything about policies and policy sets needs `manage-policies` in the organization. Not
 * being allowed looks exactly like the thing not existing (404). `organizationId` is the id
 * recorded on the row: a permission in a re-created organization of the same name does not
 * reach the deleted one's rows (ADR 0019).
 */
export function requireManagePolicies(principal: Principal | undefined, organization: string): void {
  if (!hasPermission(principal, organization, 'manage-policies')) throw notFound();
}

export const canManagePolicies = (
  principal: Principal | undefined,
  organization: string,
  organizationId?: string | null,
): boolean => hasPermission(principal, organization, 'manage-policies', organizationId);
