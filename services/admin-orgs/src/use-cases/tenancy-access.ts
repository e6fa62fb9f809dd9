import { invalidAttribute, notFound } from '@policyhub/errors';
import { canAccessOrganization, type Principal } from '@policyhub/permissions';
import type { TenancyRepository } from '../db/tenancy-repository.js';
import { requireAccess } from '../domain/rules.js';

/** Batch lookups keep what the caller may see; internal calls (no principal) see everything. */
export const visibleTo =
  (principal: Principal | undefined) =>
  (row: { organization: string }): boolean =>
    !principal || canAccessOrganization(principal, row.organization);

/** An organization the caller may see, else NOT_FOUND (a disabled one is invisible to non-admins). */
export async function visibleOrganization(repo: TenancyRepository, p: Principal | undefined, name: string) {
  requireAccess(p, name);
  const org = await repo.getOrganization(name);
  if (!org || (org.is_disabled && !p?.isSiteAdmin)) throw notFound();
  return org;
}

const NAME_TAKEN = {
  organization: 'ADMIN_ORGS_ORGANIZATION_NAME_TAKEN',
  team: 'ADMIN_ORGS_TEAM_NAME_TAKEN',
  project: 'ADMIN_ORGS_PROJECT_NAME_TAKEN',
  workspace: 'ADMIN_ORGS_WORKSPACE_NAME_TAKEN',
} as const;

export const nameTaken = (what: keyof typeof NAME_TAKEN) =>
  invalidAttribute(NAME_TAKEN[what], 'name', 'Name has already been taken');
