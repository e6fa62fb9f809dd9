import { notFound } from '@policyhub/errors';
import { hasPermission, type Principal } from '@policyhub/permissions';

/**
 * Everything about policies and policy sets needs `manage-policies` in the organization. Not
 * being allowed looks exactly like the thing not existing (404).
 */
export function requireManagePolicies(principal: Principal | undefined, organization: string): void {
  if (!hasPermission(principal, organization, 'manage-policies')) throw notFound();
}

export const canManagePolicies = (principal: Principal | undefined, organization: string): boolean =>
  hasPermission(principal, organization, 'manage-policies');
