import type { Queryable } from '@policyhub/db';
import type { OrganizationRef } from '../db/organization-scope.js';
import { PolicyRepository } from '../db/policy-repository.js';
import { PolicySetRepository } from '../db/policy-set-repository.js';

/**
 * What a deletion in admin-orgs does here, inside the consumer's transaction `tx`. Each is
 * harmless to repeat.
 */

/** A deleted workspace disappears from every set (attachments and exclusions; counts drop with it). */
export async function forgetWorkspace(tx: Queryable, workspaceId: string): Promise<void> {
  await new PolicySetRepository(tx).forgetWorkspace(workspaceId);
}

export async function forgetProject(tx: Queryable, projectId: string): Promise<void> {
  await new PolicySetRepository(tx).forgetProject(projectId);
}

/**
 * A deleted organization takes its sets and policies along, by id: the name may already belong
 * to a new organization whose data must stay.
 */
export async function deleteOrganizationData(tx: Queryable, organization: OrganizationRef): Promise<void> {
  await new PolicySetRepository(tx).deleteOrganization(organization);
  await new PolicyRepository(tx).deleteOrganization(organization);
}
