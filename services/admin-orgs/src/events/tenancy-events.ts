import type { Queryable } from '@policyhub/db';
import { enqueueEvent, TOPICS } from '@policyhub/events';

/**
 * Tenancy events, written to the outbox inside the caller's transaction. Deletions are keyed by
 * the deleted entity's id: consumers delete what they recorded with it, whoever holds the name by
 * the time the event arrives.
 */
export async function enqueueOrganizationDeleted(
  tx: Queryable,
  organization: string,
  organizationId: string,
): Promise<void> {
  await enqueueEvent(tx, TOPICS.organizationDeleted, organizationId, { organization, organizationId });
}

export async function enqueueProjectDeleted(
  tx: Queryable,
  organization: string,
  projectId: string,
): Promise<void> {
  await enqueueEvent(tx, TOPICS.projectDeleted, projectId, { organization, projectId });
}

export async function enqueueWorkspaceDeleted(
  tx: Queryable,
  organization: string,
  workspaceId: string,
): Promise<void> {
  await enqueueEvent(tx, TOPICS.workspaceDeleted, workspaceId, { organization, workspaceId });
}
