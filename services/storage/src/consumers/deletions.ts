import type { adminorgsV1, policysetsV1 } from '@policyhub/contracts';
import { type ConsumedEvent, startConsumer, type Subscription, TOPICS } from '@policyhub/events';
import type { ServiceDeps } from '@policyhub/service-kit';
import type { Deps } from '../deps.js';
import { forgetOrganization, forgetPolicySet, forgetWorkspace } from '../use-cases/forget-deleted-owners.js';

/** Consumer group of storage's event consumer. */
export const STORAGE_CONSUMER = 'storage';

/**
 * Deleted organizations, workspaces and policy sets: their upload sessions and objects go too
 * (use-cases/forget-deleted-owners.ts), in the transaction that records the event, exactly once.
 */
export function startDeletionConsumer(service: ServiceDeps, deps: Deps): Promise<Subscription> {
  return startConsumer({
    name: STORAGE_CONSUMER,
    db: service.db,
    transport: service.transport,
    logger: service.logger,
    handlers: [
      {
        topic: TOPICS.organizationDeleted,
        handle: (event: ConsumedEvent<adminorgsV1.OrganizationDeleted__Output>, tx) =>
          forgetOrganization(deps, tx, {
            name: event.payload.organization,
            id: event.payload.organizationId ?? null,
          }),
      },
      {
        topic: TOPICS.workspaceDeleted,
        handle: (event: ConsumedEvent<adminorgsV1.WorkspaceDeleted__Output>, tx) =>
          forgetWorkspace(deps, tx, event.payload.organization, event.payload.workspaceId),
      },
      {
        topic: TOPICS.policySetDeleted,
        handle: (event: ConsumedEvent<policysetsV1.PolicySetDeleted__Output>, tx) =>
          forgetPolicySet(deps, tx, event.payload.organization, event.payload.policySetId),
      },
    ],
  });
}
