import { fileURLToPath } from 'node:url';
import type { EventTransport } from '@policyhub/events';
import { InternalAuth, type SigningKey, UploadTokens } from '@policyhub/grpc-runtime';
import {
  type DatabaseTimeouts,
  type RunningService,
  type ServiceDeps,
  startGrpcService,
} from '@policyhub/service-kit';
import type { Logger } from '@policyhub/telemetry';
import { AdminOrgsOrganizationStatus } from './clients/admin-orgs.js';
import type { StorageSettings } from './config.js';
import { startDeletionConsumer } from './consumers/deletions.js';
import type { Deps } from './deps.js';
import { createObjectStore } from './objects/create-object-store.js';
import type { ObjectStore } from './objects/object-store.js';
import { registerStorage } from './server.js';
import { UploadSweeper } from './use-cases/upload-sweeper.js';

export { STORAGE_CONSUMER } from './consumers/deletions.js';

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
  /** Statement and connect timeouts of the service's pool (default: the pool's). */
  databaseTimeouts?: DatabaseTimeouts | undefined;
  migrateOnly?: boolean;
}

export const STORAGE_SCHEMA = 'storage';

export async function startStorage(
  options: StorageOptions,
): Promise<RunningService & { store: ObjectStore; sweeper: UploadSweeper | undefined }> {
  const { settings } = options;
  const store = await createObjectStore(settings.objects);
  options.logger.info({ objectStore: store.kind }, 'object store ready');
  const auth = new InternalAuth({ keys: options.signingKeys, service: 'storage' });
  const uploadTokens = new UploadTokens(options.signingKeys);
  const organizations = new AdminOrgsOrganizationStatus(options.adminOrgsAddress, auth.credential);
  // The use cases' Deps, built once from the pool and relay startGrpcService opens (onStart is
  // the first hook that has them).
  let deps: Deps | undefined;
  const depsOf = ({ db, relay, logger }: ServiceDeps): Deps => {
    deps ??= {
      db,
      relay,
      logger,
      store,
      organizations,
      limits: settings.limits,
      stagingDir: settings.stagingDir,
      uploadTokens,
    };
    return deps;
  };
  let sweeper: UploadSweeper | undefined;
  const service = await startGrpcService({
    name: 'storage',
    schema: STORAGE_SCHEMA,
    databaseUrl: options.databaseUrl,
    migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)),
    grpcAddress: options.grpcAddress,
    transport: options.transport,
    logger: options.logger,
    auth,
    databaseTimeouts: options.databaseTimeouts,
    migrateOnly: options.migrateOnly,
    onStart: async (shared) => {
      sweeper = new UploadSweeper({ ...depsOf(shared), intervalMs: settings.sweepIntervalMs });
    },
    register: (server, shared) => registerStorage(server, shared, depsOf(shared)),
    consumers: async (shared) => [await startDeletionConsumer(shared, depsOf(shared))],
    onClose: async () => {
      organizations.close();
      await store.close?.();
    },
  }).catch((err: unknown) => {
    organizations.close();
    throw err;
  });
  if (!sweeper) return Object.assign(service, { store, sweeper });
  // Expired sessions and staging files of a crashed process: now (the service serves), then
  // periodically (ADR 0024).
  const started = sweeper;
  started.start();
  const close = service.close.bind(service);
  return Object.assign(service, {
    store,
    sweeper: started,
    close: async () => {
      await started.stop();
      await close();
    },
  });
}
