import type { adminorgsV1 } from '@policyhub/contracts';
import { type ConsumedEvent, startConsumer, type Subscription, TOPICS } from '@policyhub/events';
import { PolicyRepository } from '../db/policy-repository.js';
import { PolicySetRepository } from '../db/policy-set-repository.js';
import type { PolicySetsDeps } from '../deps.js';

export const ADMIN_ORGS_DELETIONS_CONSUMER = 'policy-sets.admin-orgs-deletions';

/**
 * Follows deletions in admin-orgs: a deleted workspace or project disappears from every set
 * (relationships and exclusions; counts drop with it), a deleted organization takes its sets
 * and policies along. Each effect is applied exactly once (startConsumer records the event id
 * in the same transaction) and is harmless to repeat anyway.
 */
export function startAdminOrgsDeletionsConsumer({
  db,
  transport,
  logger,
}: PolicySetsDeps): Promise<Subscription> {
  return startConsumer({
    name: ADMIN_ORGS_DELETIONS_CONSUMER,
    db,
    transport,
    logger,
    handlers: [
      {
        topic: TOPICS.workspaceDeleted,
        handle: async (event: ConsumedEvent<adminorgsV1.WorkspaceDeleted__Output>, tx) => {
          await new PolicySetRepository(tx).forgetWorkspace(event.payload.workspaceId);
        },
      },
      {
        topic: TOPICS.projectDeleted,
        handle: async (event: ConsumedEvent<adminorgsV1.ProjectDeleted__Output>, tx) => {
          await new PolicySetRepository(tx).forgetProject(event.payload.projectId);
        },
      },
      {
        topic: TOPICS.organizationDeleted,
        handle: async (event: ConsumedEvent<adminorgsV1.OrganizationDeleted__Output>, tx) => {
          // By id: the name may already belong to a new organization whose data must stay. Events
          // written before ids existed carry none and reach only rows without an id.
          const organization = {
            name: event.payload.organization,
            id: event.payload.organizationId ?? null,
          };
          await new PolicySetRepository(tx).deleteOrganization(organization);
          await new PolicyRepository(tx).deleteOrganization(organization);
        },
      },
    ],
  });
}
