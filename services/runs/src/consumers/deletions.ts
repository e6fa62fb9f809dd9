import type { adminorgsV1 } from '@policyhub/contracts';
import type { Db, Queryable } from '@policyhub/db';
import { type EventTransport, startConsumer, type Subscription, TOPICS } from '@policyhub/events';
import type { Logger } from '@policyhub/telemetry';
import { ConfigurationVersionRepository } from '../db/configuration-version-repository.js';
import { ObjectDeletionRepository } from '../db/object-deletion-repository.js';
import type { OrganizationRef } from '../db/organization-scope.js';
import { RunRepository } from '../db/run-repository.js';
import { runObjectPrefix } from '../domain/ports.js';

/**
 * A deleted workspace or organization takes its runs with it (plans, checks, comments and events
 * cascade) and its configuration versions. Stored plan files are queued for the object sweeper
 * in the same transaction; storage removes configuration archives (and revokes their upload
 * URLs) when it consumes the same deletion.
 * Idempotent: a repeated event deletes nothing more.
 */
export function startDeletionConsumer(options: {
  db: Db;
  transport: EventTransport;
  logger: Logger;
  onObjectsOrphaned: () => void;
}): Promise<Subscription> {
  const removeRuns = async (
    tx: Queryable,
    scope: { workspaceId: string } | { organization: OrganizationRef },
  ) => {
    const runs = new RunRepository(tx);
    const versions = new ConfigurationVersionRepository(tx);
    let deleted: Array<{ id: string; organization: string }>;
    if ('workspaceId' in scope) {
      deleted = await runs.deleteInWorkspace(scope.workspaceId);
      await versions.deleteInWorkspace(scope.workspaceId);
    } else {
      deleted = await runs.deleteInOrganization(scope.organization);
      await versions.deleteInOrganization(scope.organization);
    }
    await new ObjectDeletionRepository(tx).enqueue(deleted.map((r) => runObjectPrefix(r.organization, r.id)));
    if (deleted.length > 0) options.onObjectsOrphaned();
  };
  return startConsumer({
    name: 'runs.admin-orgs-deletions',
    db: options.db,
    transport: options.transport,
    logger: options.logger,
    handlers: [
      {
        topic: TOPICS.workspaceDeleted,
        handle: (event: { payload: adminorgsV1.WorkspaceDeleted__Output }, tx) =>
          removeRuns(tx, { workspaceId: event.payload.workspaceId }),
      },
      {
        topic: TOPICS.organizationDeleted,
        handle: (event: { payload: adminorgsV1.OrganizationDeleted__Output }, tx) =>
          // By id: the name may belong to a new organization by now, whose runs stay.
          removeRuns(tx, {
            organization: { name: event.payload.organization, id: event.payload.organizationId ?? null },
          }),
      },
    ],
  });
}
