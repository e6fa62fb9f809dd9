import type { Queryable } from '@policyhub/db';
import { ClaimTurnRepository } from '../db/claim-turn-repository.js';
import { ConfigurationVersionRepository } from '../db/configuration-version-repository.js';
import { ObjectDeletionRepository } from '../db/object-deletion-repository.js';
import type { OrganizationRef } from '../db/organization-scope.js';
import { RunRepository } from '../db/run-repository.js';
import type { Deps } from '../deps.js';
import { runObjectPrefix } from '../domain/ports.js';

/**
 * A deleted workspace or organization takes its runs with it (plans, checks, comments and events
 * cascade) and its configuration versions, inside the consumer's transaction; an organization
 * also takes its turn in the evaluators' claims (claim_turns). Stored plan files
 * are queued for the object sweeper in the same transaction; storage removes configuration
 * archives (and revokes their upload URLs) when it consumes the same deletion.
 * Idempotent: a repeated event deletes nothing more.
 */
export async function removeRunsOf(
  deps: Pick<Deps, 'onObjectsOrphaned'>,
  tx: Queryable,
  scope: { workspaceId: string } | { organization: OrganizationRef },
): Promise<void> {
  const runs = new RunRepository(tx);
  const versions = new ConfigurationVersionRepository(tx);
  let deleted: Array<{ id: string; organization: string }>;
  if ('workspaceId' in scope) {
    deleted = await runs.deleteInWorkspace(scope.workspaceId);
    await versions.deleteInWorkspace(scope.workspaceId);
  } else {
    deleted = await runs.deleteInOrganization(scope.organization);
    await versions.deleteInOrganization(scope.organization);
    await new ClaimTurnRepository(tx).forget(scope.organization);
  }
  await new ObjectDeletionRepository(tx).enqueue(deleted.map((r) => runObjectPrefix(r.organization, r.id)));
  if (deleted.length > 0) deps.onObjectsOrphaned();
}
