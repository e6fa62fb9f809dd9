import { notFound } from '@policyhub/errors';
import type { Principal } from '@policyhub/permissions';
import type { PolicySetRecord, PolicySetRepository, PolicySetRow } from '../db/policy-set-repository.js';
import { canManagePolicies } from '../domain/access.js';

/**
 * A set the caller may manage, else NOT_FOUND (hidden looks exactly like missing). Its row alone:
 * a hidden or missing set costs one row read, never a read of its linked items.
 */
export async function visiblePolicySet(
  repo: PolicySetRepository,
  principal: Principal | undefined,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<PolicySetRecord> {
  const set = await repo.get(id, options);
  if (!set || !canManagePolicies(principal, set.organization, set.organization_id)) throw notFound();
  return set;
}

/** Sets with their linked items, loaded for all of them in one statement. */
export async function withLinks(
  repo: PolicySetRepository,
  sets: readonly PolicySetRecord[],
): Promise<PolicySetRow[]> {
  const links = await repo.links(sets.map((s) => s.id));
  const none = {
    policy_ids: [],
    workspace_ids: [],
    project_ids: [],
    workspace_exclusion_ids: [],
    project_exclusion_ids: [],
  };
  return sets.map((s) => ({ ...s, ...(links.get(s.id) ?? none) }));
}
