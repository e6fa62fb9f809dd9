import { AdminOrganizationRepository } from '../db/admin-organization-repository.js';
import { TenancyRepository } from '../db/tenancy-repository.js';
import type { AuditActor } from '@policyhub/events';
import type { Deps } from '../deps.js';
import { enqueueSharingChanged } from '../events/sharing-changed.js';
import { enqueueOrganizationDeleted } from '../events/tenancy-events.js';
import { recordAudit } from './audit-trail.js';

/**
 * Deletes an organization and everything it owns here (by its owner or a site admin); other
 * services follow the event. False when there was no such organization.
 */
export async function deleteOrganization(
  { db, relay }: Deps,
  name: string,
  actor: AuditActor | null,
): Promise<boolean> {
  const deleted = await db.transaction(async (tx) => {
    // Producers that list this organization as a registry consumer lose it (FK cascade); tell them too.
    const sharing = new AdminOrganizationRepository(tx);
    const producers = await sharing.producersOfDeleted(name);
    const organizationId = await new TenancyRepository(tx).deleteOrganization(name);
    if (organizationId === undefined) return false;
    // Keyed by the id: consumers delete what was recorded with it, whoever holds the name by then.
    await enqueueOrganizationDeleted(tx, name, organizationId);
    await recordAudit(tx, {
      organization: { name, id: organizationId },
      actor,
      resource: { type: 'organization', id: organizationId, action: 'destroy' },
    });
    for (const state of await sharing.sharingStates(producers)) await enqueueSharingChanged(tx, state);
    return true;
  });
  if (deleted) await relay.flushWithin();
  return deleted;
}
