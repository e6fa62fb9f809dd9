import type { Principal } from '@policyhub/permissions';
import type { OrganizationRef } from '../db/organization-scope.js';
import { requireManagePolicies } from '../domain/access.js';
import type { TenancyDirectory } from '../domain/ports.js';

/**
 * The organization of that name as the caller may manage it, with its immutable id. A member's
 * principal carries the id of the organization that holds the name (and proves it exists); site
 * admins pass every permission check, so for them the organization is looked up (404 if unknown).
 */
export async function managedOrganization(
  tenancy: TenancyDirectory,
  principal: Principal | undefined,
  organization: string,
): Promise<OrganizationRef> {
  requireManagePolicies(principal, organization);
  const id = principal?.isSiteAdmin ? undefined : principal?.organizationIds?.get(organization);
  if (id) return { name: organization, id };
  return { name: organization, id: (await tenancy.organization(principal, organization)).id };
}
