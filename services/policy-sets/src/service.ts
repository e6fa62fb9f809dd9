import { fileURLToPath } from 'node:url';
import { documented as doc, env } from '@policyhub/config';
import type { EventTransport } from '@policyhub/events';
import { InternalAuth, type SigningKey, UploadTokens } from '@policyhub/grpc-runtime';
import {
  type DatabaseTimeouts,
  type RunningService,
  type ServiceDeps,
  startGrpcService,
} from '@policyhub/service-kit';
import type { Logger } from '@policyhub/telemetry';
import { AdminOrgsLookup } from './clients/admin-orgs-lookup.js';
import { createPolicySetsClients } from './clients/index.js';
import { StorageArchiveDeclarations } from './clients/storage-archive-declarations.js';
import { StorageUploadSessions } from './clients/storage-upload-sessions.js';
import { type ParameterKey, ParameterSealer, parseParameterKeys } from './crypto/parameter-keys.js';
import { startAdminOrgsDeletionsConsumer } from './consumers/admin-orgs-deletions.js';
import { startUploadCompletedConsumer } from './consumers/upload-completed.js';
import type { Deps } from './deps.js';
import { UPLOAD_WINDOW_MS } from './domain/versions.js';
import { registerPolicySets } from './server.js';
import { DeclarationBackfill, type DeclarationBackfillOptions } from './use-cases/declaration-backfill.js';
import { PolicySetParameterUseCases } from './use-cases/policy-set-parameters.js';

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
  /** Keys sealing sensitive set parameters (the first seals); none: sensitive parameters are refused. */
  parameterKeys?: readonly ParameterKey[] | undefined;
  /** Statement and connect timeouts of the service's pool (default: the pool's). */
  databaseTimeouts?: DatabaseTimeouts | undefined;
  /**
   * The background recording of declarations of versions uploaded before they were recorded
   * (docs/adr/0057): its pace (defaults: a round of 20 at start and every minute), or false for
   * none (tests that need a version to stay without one).
   */
  declarationBackfill?: Pick<DeclarationBackfillOptions, 'intervalMs' | 'batchSize' | 'retryAfterMs'> | false;
  migrateOnly?: boolean;
}

export const POLICY_SETS_SCHEMA = 'policy_sets';

/** policy-sets' own environment (docs/configuration.md is generated from it). */
export const policySetsConfigShape = {
  ADMIN_ORGS_ADDR: doc(env.address('127.0.0.1:50051'), 'admin-orgs gRPC'),
  STORAGE_ADDR: doc(env.address('127.0.0.1:50054'), 'storage gRPC'),
  POLICY_SET_PARAMETER_KEYS: doc(
    env.parsed(parseParameterKeys, 'must be <id>:<base64 of 32 bytes>[,<id>:<key>…]').optional(),
    '`<id>:<base64 of 32 bytes>[,…]`: the first key encrypts sensitive policy set parameters, every key decrypts; values are re-encrypted with the first at start (docs/security.md). Unset: sensitive parameters are refused (501); `npm start` generates one into `DATA_DIR`',
    'none',
  ),
};

export async function startPolicySets(
  options: PolicySetsOptions,
): Promise<RunningService & { declarationBackfill: DeclarationBackfill | undefined }> {
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
      uploadTokens: new UploadTokens(options.signingKeys),
      uploadUrlTtlMs: options.uploadUrlTtlMs ?? UPLOAD_WINDOW_MS,
      parameterSealer: options.parameterKeys?.length ? new ParameterSealer(options.parameterKeys) : undefined,
    };
    return deps;
  };
  try {
    const running = await startGrpcService({
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
    if (!deps || options.migrateOnly) return Object.assign(running, { declarationBackfill: undefined });
    await resealParameters(deps, options.logger);
    if (options.declarationBackfill === false)
      return Object.assign(running, { declarationBackfill: undefined });
    // In the background: the service serves while storage reads old archives again.
    const backfill = new DeclarationBackfill({
      ...options.declarationBackfill,
      db: deps.db,
      declarations: new StorageArchiveDeclarations(clients),
      logger: options.logger,
    });
    backfill.start();
    const close = running.close.bind(running);
    return Object.assign(running, {
      declarationBackfill: backfill,
      close: async () => {
        await backfill.stop();
        await close();
      },
    });
  } catch (err) {
    clients.close();
    throw err;
  }
}

/** After a key rotation: values sealed with an older key are sealed again with the current one. */
async function resealParameters(deps: Deps, logger: Logger): Promise<void> {
  const { resealed, unreadable } = await new PolicySetParameterUseCases(deps).resealWithCurrentKey();
  if (resealed > 0)
    logger.info({ resealed }, 'sensitive policy set parameters sealed again with the current key');
  if (unreadable.length > 0) {
    logger.error(
      { parameters: unreadable },
      'sensitive policy set parameters sealed with a key that POLICY_SET_PARAMETER_KEYS no longer holds',
    );
  }
}
