import { fileURLToPath } from 'node:url';
import type { EventTransport } from '@policyhub/events';
import { startConsumer } from '@policyhub/events';
import { InternalAuth, type SigningKey } from '@policyhub/grpc-runtime';
import { type RunningService, startGrpcService } from '@policyhub/service-kit';
import type { Logger } from '@policyhub/telemetry';
import { AdminOrgsOrganizationStatus } from './clients/admin-orgs.js';
import type { StorageSettings } from './config.js';
import { deletionHandlers } from './consumers/deletions.js';
import { createObjectStore } from './objects/create-object-store.js';
import type { ObjectStore } from './objects/object-store.js';
import { registerStorage } from './server.js';
import { UploadSweeper } from './uploads/upload-sweeper.js';

export interface StorageOptions {
  databaseUrl: string;
  grpcAddress: string;
  transport: EventTransport;
  logger: Logger;
  /** Keys of internal call assertions (the first signs). */
  signingKeys: readonly SigningKey[];
  settings: StorageSettings;
  /** admin-orgs gRPC address: whether an upload's organization is enabled. */
  adminOrgsAddress: string;
  migrateOnly?: boolean;
}

export const STORAGE_SCHEMA = 'storage';
/** Consumer group of storage's event consumers. */
export const STORAGE_CONSUMER = 'storage';

export async function startStorage(
  options: StorageOptions,
): Promise<RunningService & { store: ObjectStore; sweeper: UploadSweeper | undefined }> {
  const { settings } = options;
  const store = await createObjectStore(settings.objects);
  options.logger.info({ objectStore: store.kind }, 'object store ready');
  const auth = new InternalAuth({ keys: options.signingKeys, service: 'storage' });
  const organizations = new AdminOrgsOrganizationStatus(options.adminOrgsAddress, auth.credential);
  const service = await startGrpcService({
    name: 'storage',
    schema: STORAGE_SCHEMA,
    databaseUrl: options.databaseUrl,
    migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)),
    grpcAddress: options.grpcAddress,
    transport: options.transport,
    logger: options.logger,
    auth,
    migrateOnly: options.migrateOnly,
    register: (server, deps) =>
      registerStorage(server, {
        ...deps,
        store,
        organizations,
        limits: settings.limits,
        stagingDir: settings.stagingDir,
      }),
    consumers: async (deps) => [
      await startConsumer({
        name: STORAGE_CONSUMER,
        db: deps.db,
        transport: deps.transport,
        logger: deps.logger,
        handlers: deletionHandlers(store),
      }),
    ],
    onClose: async () => {
      organizations.close();
      await store.close?.();
    },
  }).catch((err: unknown) => {
    organizations.close();
    throw err;
  });
  if (options.migrateOnly) return Object.assign(service, { store, sweeper: undefined });
  // Expired sessions and staging files of a crashed process: now, then periodically (ADR 0024).
  const sweeper = new UploadSweeper({
    db: service.db,
    relay: service.relay,
    store,
    logger: options.logger,
    stagingDir: settings.stagingDir,
    limits: settings.limits,
    intervalMs: settings.sweepIntervalMs,
  });
  sweeper.start();
  const close = service.close.bind(service);
  return Object.assign(service, {
    store,
    sweeper,
    close: async () => {
      await sweeper.stop();
      await close();
    },
  });
}
