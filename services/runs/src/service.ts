import { fileURLToPath } from 'node:url';
import type { EventTransport } from '@policyhub/events';
import { type RunningService, startGrpcService } from '@policyhub/service-kit';
import type { Logger } from '@policyhub/telemetry';
import { grpcObjectStore } from './clients/object-store.js';
import { grpcPolicySetSource } from './clients/policy-set-source.js';
import { grpcWorkspaceDirectory } from './clients/workspace-directory.js';
import { startDeletionConsumer } from './consumers/deletions.js';
import type { ObjectStore, PolicySetSource, WorkspaceDirectory } from './domain/ports.js';
import { registerRuns } from './server.js';
import { ObjectSweeper } from './workflows/object-sweeper.js';

export interface RunsOptions {
  databaseUrl: string;
  grpcAddress: string;
  transport: EventTransport;
  logger: Logger;
  /** admin-orgs (workspaces), policy-sets (applicable sets) and storage (plan JSON, archives). */
  adminOrgsAddress: string;
  policySetsAddress: string;
  storageAddress: string;
  /** Replaces a gRPC adapter (component tests use fakes for services they do not start). */
  ports?: { workspaces?: WorkspaceDirectory; policySets?: PolicySetSource; objects?: ObjectStore };
  migrateOnly?: boolean;
}

export const RUNS_SCHEMA = 'runs';

export function startRuns(options: RunsOptions): Promise<RunningService> {
  const adapters = {
    workspaces: grpcWorkspaceDirectory(options.adminOrgsAddress),
    policySets: grpcPolicySetSource(options.policySetsAddress),
    objects: grpcObjectStore(options.storageAddress),
  };
  const ports = {
    workspaces: options.ports?.workspaces ?? adapters.workspaces,
    policySets: options.ports?.policySets ?? adapters.policySets,
    objects: options.ports?.objects ?? adapters.objects,
  };
  let sweeper: ObjectSweeper | undefined;
  const closeAdapters = () => {
    for (const adapter of Object.values(adapters)) adapter.close();
  };
  return startGrpcService({
    name: 'runs',
    schema: RUNS_SCHEMA,
    databaseUrl: options.databaseUrl,
    migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)),
    grpcAddress: options.grpcAddress,
    transport: options.transport,
    logger: options.logger,
    migrateOnly: options.migrateOnly,
    async onStart({ db, logger }) {
      sweeper = new ObjectSweeper({ db, objects: ports.objects, logger });
      sweeper.start();
    },
    register: (server, deps) =>
      registerRuns(server, deps, { db: deps.db, ...ports, onObjectsOrphaned: () => sweeper?.schedule() }),
    consumers: async (deps) => [
      await startDeletionConsumer({ ...deps, onObjectsOrphaned: () => sweeper?.schedule() }),
    ],
    async onClose() {
      await sweeper?.stop();
      closeAdapters();
    },
  }).catch((err: unknown) => {
    closeAdapters();
    throw err;
  });
}
