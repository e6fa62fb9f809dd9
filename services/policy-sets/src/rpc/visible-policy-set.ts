import { notFound } from '@policyhub/errors';
import type { Principal } from '@policyhub/grpc-runtime';
import type { PolicySetRepository, PolicySetRow } from '../db/policy-set-repository.js';
import { canManagePolicies } from '../domain/access.js';

/** A set the caller may manage, else NOT_FOUND (hidden looks exactly like missing). */
export async function visiblePolicySet(
  repo: PolicySetRepository,
  principal: Principal | undefined,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<PolicySetRow> {
  const set = await repo.get(id, options);
  if (!set || !canManagePolicies(principal, set.organization, set.organization_id)) throw notFound();
  return set;
}
