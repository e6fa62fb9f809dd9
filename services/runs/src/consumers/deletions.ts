import type { adminorgsV1 } from '@policyhub/contracts';
import { startConsumer, type Subscription, TOPICS } from '@policyhub/events';
import type { ServiceDeps } from '@policyhub/service-kit';
import type { Deps } from '../deps.js';
import { removeRunsOf } from '../use-cases/deletions.js';

/**
 * Deleted workspaces and organizations (admin-orgs): their runs and configuration versions go
 * too (use-cases/deletions.ts), in the transaction that records the event, exactly once.
 */
export function startDeletionConsumer(service: ServiceDeps, deps: Deps): Promise<Subscription> {
  return startConsumer({
    name: 'runs.admin-orgs-deletions',
    db: service.db,
    transport: service.transport,
    logger: service.logger,
    handlers: [
      {
        topic: TOPICS.workspaceDeleted,
        handle: (event: { payload: adminorgsV1.WorkspaceDeleted__Output }, tx) =>
          removeRunsOf(deps, tx, { workspaceId: event.payload.workspaceId }),
      },
      {
        topic: TOPICS.organizationDeleted,
        handle: (event: { payload: adminorgsV1.OrganizationDeleted__Output }, tx) =>
          // By id: the name may belong to a new organization by now, whose runs stay.
          removeRunsOf(deps, tx, {
            organization: { name: event.payload.organization, id: event.payload.organizationId ?? null },
          }),
      },
    ],
  });
}
