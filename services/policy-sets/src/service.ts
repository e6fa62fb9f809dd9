import { fileURLToPath } from 'node:url';
import { documented as doc, env } from '@policyhub/config';
import type { EventTransport } from '@policyhub/events';
import { InternalAuth, type SigningKey } from '@policyhub/grpc-runtime';
import {
  type DatabaseTimeouts,
  type RunningService,
  type ServiceDeps,
  startGrpcService,
} from '@policyhub/service-kit';
import type { Logger } from '@policyhub/telemetry';
import { AdminOrgsLookup } from './clients/admin-orgs-lookup.js';
import { createPolicySetsClients } from './clients/index.js';
import { StorageUploadSessions } from './clients/storage-upload-sessions.js';
import { startAdminOrgsDeletionsConsumer } from './consumers/admin-orgs-deletions.js';
import { startUploadCompletedConsumer } from './consumers/upload-completed.js';
import type { Deps } from './deps.js';
import { UPLOAD_WINDOW_MS } from './domain/versions.js';
import { registerPolicySets } from './server.js';

export interface PolicySetsOptions {
  databaseUrl: string;
  grpcAddress: string;
  transport: EventTransport;
  logger: Logger;
  /** Keys of internal call assertions (the first signs). */
  signingKeys: readonly SigningKey[];
  /** admin-orgs gRPC address: organizations (entitlements), workspaces and projects. */
  adminOrgsAddress: string;
  /** storage gRPC address: upload sessions and archives of policy set versions. */
  storageAddress: string;
  /** How long a version's upload URL works; one hour (the spec) unless a test shortens it. */
  uploadUrlTtlMs?: number | undefined;
  /** Statement and connect timeouts of the service's pool (default: the pool's). */
  databaseTimeouts?: DatabaseTimeouts | undefined;
  migrateOnly?: boolean;
}

export const POLICY_SETS_SCHEMA = 'policy_sets';

/** policy-sets' own environment (docs/configuration.md is generated from it). */
export const policySetsConfigShape = {
  ADMIN_ORGS_ADDR: doc(env.address('127.0.0.1:50051'), 'admin-orgs gRPC'),
  STORAGE_ADDR: doc(env.address('127.0.0.1:50054'), 'storage gRPC'),
};

export async function startPolicySets(options: PolicySetsOptions): Promise<RunningService> {
  const auth = new InternalAuth({ keys: options.signingKeys, service: 'policy-sets' });
  const clients = createPolicySetsClients(
    { adminOrgs: options.adminOrgsAddress, storage: options.storageAddress },
    auth.credential,
  );
  // The use cases' Deps, built once from the pool and relay startGrpcService opens.
  let deps: Deps | undefined;
  const depsOf = ({ db, relay }: ServiceDeps): Deps => {
    deps ??= {
      db,
      relay,
      tenancy: new AdminOrgsLookup(clients),
      uploadSessions: new StorageUploadSessions(clients),
      uploadUrlTtlMs: options.uploadUrlTtlMs ?? UPLOAD_WINDOW_MS,
    };
    return deps;
  };
  try {
    return await startGrpcService({
      name: 'policy-sets',
      schema: POLICY_SETS_SCHEMA,
      databaseUrl: options.databaseUrl,
      migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)),
      grpcAddress: options.grpcAddress,
      transport: options.transport,
      logger: options.logger,
      auth,
      databaseTimeouts: options.databaseTimeouts,
      migrateOnly: options.migrateOnly,
      register: (server, service) => registerPolicySets(server, service, depsOf(service)),
      consumers: async (service) => [
        await startAdminOrgsDeletionsConsumer(service),
        await startUploadCompletedConsumer(service, depsOf(service)),
      ],
      onClose: async () => clients.close(),
    });
  } catch (err) {
    clients.close();
    throw err;
  }
}
