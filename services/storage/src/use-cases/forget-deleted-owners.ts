import type { Queryable } from '@policyhub/db';
import { ObjectRepository } from '../db/object-repository.js';
import { SessionRepository } from '../db/session-repository.js';
import type { Deps } from '../deps.js';
import { policySetPrefix, workspacePrefix } from '../domain/object-keys.js';
import { deleteObjects } from './delete-objects.js';

/*
 * Storage follows deletions elsewhere: an organization's, a policy set's or a workspace's (its
 * configuration versions') upload sessions are revoked (their URLs then answer 404) and their
 * objects removed. Each runs inside the consumer's transaction `tx`; the store deletions are
 * idempotent, so a retry after a failure is safe.
 */

/**
 * By id, not by the name's key prefix: the name may belong to a new organization by now, whose
 * sessions and archives stay (ADR 0019).
 */
export async function forgetOrganization(
  deps: Pick<Deps, 'store'>,
  tx: Queryable,
  organization: { name: string; id: string | null },
): Promise<void> {
  await new SessionRepository(tx).deleteForOrganization(organization);
  await deleteObjects(deps, tx, { keys: await new ObjectRepository(tx).keysOfOrganization(organization) });
}

export async function forgetWorkspace(
  deps: Pick<Deps, 'store'>,
  tx: Queryable,
  organization: string,
  workspaceId: string,
): Promise<void> {
  await new SessionRepository(tx).deleteFor(organization, workspaceId);
  await deleteObjects(deps, tx, { prefixes: [workspacePrefix(organization, workspaceId)] });
}

export async function forgetPolicySet(
  deps: Pick<Deps, 'store'>,
  tx: Queryable,
  organization: string,
  policySetId: string,
): Promise<void> {
  await new SessionRepository(tx).deleteFor(organization, policySetId);
  await deleteObjects(deps, tx, { prefixes: [policySetPrefix(organization, policySetId)] });
}
