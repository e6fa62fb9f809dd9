import type { Queryable } from '@policyhub/db';
import { enqueueEvent, TOPICS } from '@policyhub/events';
import type { SharingState } from '../domain/registry-sharing.js';

/**
 * Writes admin-orgs.org-sharing-changed (OrgSharingChanged) to the outbox inside the caller's
 * transaction: the organization's sharing settings as they are after the change.
 */
export async function enqueueSharingChanged(tx: Queryable, state: SharingState): Promise<void> {
  await enqueueEvent(tx, TOPICS.orgSharingChanged, state.organization, {
    organization: state.organization,
    globalModuleSharing: state.globalModuleSharing,
    globalProviderSharing: state.globalProviderSharing,
    moduleConsumers: state.moduleConsumers,
    providerConsumers: state.providerConsumers,
  });
}
