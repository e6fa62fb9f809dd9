import type { adminorgsV1 } from '@policyhub/contracts';
import { type ConsumedEvent, startConsumer, type Subscription, TOPICS } from '@policyhub/events';
import type { ServiceDeps } from '@policyhub/service-kit';
import { deleteOrganizationData, forgetProject, forgetWorkspace } from '../use-cases/tenancy-deletions.js';

export const ADMIN_ORGS_DELETIONS_CONSUMER = 'policy-sets.admin-orgs-deletions';

/**
 * Follows deletions in admin-orgs: a deleted workspace or project disappears from every set, a
 * deleted organization takes its sets and policies along. Each effect is applied exactly once
 * (startConsumer records the event id in the same transaction) and is harmless to repeat anyway.
 */
export function startAdminOrgsDeletionsConsumer({
  db,
  transport,
  logger,
}: ServiceDeps): Promise<Subscription> {
  return startConsumer({
    name: ADMIN_ORGS_DELETIONS_CONSUMER,
    db,
    transport,
    logger,
    handlers: [
      {
        topic: TOPICS.workspaceDeleted,
        handle: (event: ConsumedEvent<adminorgsV1.WorkspaceDeleted__Output>, tx) =>
          forgetWorkspace(tx, event.payload.workspaceId),
      },
      {
        topic: TOPICS.projectDeleted,
        handle: (event: ConsumedEvent<adminorgsV1.ProjectDeleted__Output>, tx) =>
          forgetProject(tx, event.payload.projectId),
      },
      {
        topic: TOPICS.organizationDeleted,
        handle: (event: ConsumedEvent<adminorgsV1.OrganizationDeleted__Output>, tx) =>
          // Events written before organization ids existed carry none and reach only rows without one.
          deleteOrganizationData(tx, {
            name: event.payload.organization,
            id: event.payload.organizationId ?? null,
          }),
      },
    ],
  });
}
