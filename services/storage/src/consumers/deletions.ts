import type { adminorgsV1, policysetsV1 } from '@policyhub/contracts';
import type { Queryable } from '@policyhub/db';
import { type ConsumedEvent, TOPICS } from '@policyhub/events';
import { ObjectRepository } from '../db/object-repository.js';
import { SessionRepository } from '../db/session-repository.js';
import { policySetPrefix, workspacePrefix } from '../domain/object-keys.js';
import type { ObjectStore } from '../objects/object-store.js';
import { deleteObjects } from '../stored-objects/delete-objects.js';

/**
 * Storage follows deletions elsewhere: an organization's, a policy set's or a workspace's (its
 * configuration versions') upload sessions are
 * revoked (their URLs then answer 404) and their objects removed by key prefix. Both run inside the
 * consumer's transaction; the store deletions are idempotent, so a retry after a failure is safe.
 */
export function deletionHandlers(store: ObjectStore) {
  return [
    {
      topic: TOPICS.organizationDeleted,
      async handle(event: ConsumedEvent<adminorgsV1.OrganizationDeleted__Output>, tx: Queryable) {
        // By id, not by the name's key prefix: the name may belong to a new organization by now,
        // whose sessions and archives stay (ADR 0019).
        const organization = { name: event.payload.organization, id: event.payload.organizationId ?? null };
        await new SessionRepository(tx).deleteForOrganization(organization);
        await deleteObjects(tx, store, {
          keys: await new ObjectRepository(tx).keysOfOrganization(organization),
        });
      },
    },
    {
      topic: TOPICS.workspaceDeleted,
      async handle(event: ConsumedEvent<adminorgsV1.WorkspaceDeleted__Output>, tx: Queryable) {
        const { organization, workspaceId } = event.payload;
        await new SessionRepository(tx).deleteFor(organization, workspaceId);
        await deleteObjects(tx, store, { prefixes: [workspacePrefix(organization, workspaceId)] });
      },
    },
    {
      topic: TOPICS.policySetDeleted,
      async handle(event: ConsumedEvent<policysetsV1.PolicySetDeleted__Output>, tx: Queryable) {
        const { organization, policySetId } = event.payload;
        await new SessionRepository(tx).deleteFor(organization, policySetId);
        await deleteObjects(tx, store, { prefixes: [policySetPrefix(organization, policySetId)] });
      },
    },
  ];
}
