import { documented as doc, z } from '@policyhub/config';
import { fileURLToPath } from 'node:url';
import type { EventTransport } from '@policyhub/events';
import { InternalAuth, type SigningKey } from '@policyhub/grpc-runtime';
import { type RunningService, type ServiceDeps, startGrpcService } from '@policyhub/service-kit';
import type { Logger } from '@policyhub/telemetry';
import { startAuditRecordedConsumer } from './consumers/audit-recorded.js';
import type { Deps } from './deps.js';
import { registerAdminOrgs } from './server.js';
import { ensureBootstrapSiteAdmin } from './use-cases/site-admin-bootstrap.js';

export interface AdminOrgsOptions {
  databaseUrl: string;
  grpcAddress: string;
  transport: EventTransport;
  logger: Logger;
  /** Keys of internal call assertions (the first signs). */
  signingKeys: readonly SigningKey[];
  /**
   * Token of the bootstrap site admin `admin`, made the only bootstrap token at every start (a
   * previous value is revoked; unset revokes them all).
   */
  siteAdminToken?: string | undefined;
  migrateOnly?: boolean;
}

export const ADMIN_ORGS_SCHEMA = 'admin_orgs';

/** The bootstrap site admin's token; the rest is the shared service variables. */
export const siteAdminTokenEnv = (unset: string) =>
  doc(
    z.string().min(20, 'must be at least 20 characters').optional(),
    'token of the bootstrap site admin `admin` (≥ 20 characters), created or updated at every start; the only bootstrap token kept, so a changed value revokes the previous one ([docs/security.md](security.md#api-tokens-rotation-and-revocation))',
    unset,
  );

/** admin-orgs' own environment (docs/configuration.md is generated from it). */
export const adminOrgsConfigShape = {
  SITE_ADMIN_TOKEN: siteAdminTokenEnv('unset: no bootstrap token (an earlier one is revoked)'),
};

export function startAdminOrgs(options: AdminOrgsOptions): Promise<RunningService> {
  // The use cases' Deps, built once from the pool and relay startGrpcService opens.
  let deps: Deps | undefined;
  const depsOf = ({ db, relay }: ServiceDeps): Deps => {
    deps ??= { db, relay };
    return deps;
  };
  return startGrpcService({
    name: 'admin-orgs',
    schema: ADMIN_ORGS_SCHEMA,
    databaseUrl: options.databaseUrl,
    migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)),
    grpcAddress: options.grpcAddress,
    transport: options.transport,
    logger: options.logger,
    auth: new InternalAuth({ keys: options.signingKeys, service: 'admin-orgs' }),
    migrateOnly: options.migrateOnly,
    register: (server, service) => registerAdminOrgs(server, service, depsOf(service)),
    consumers: async (service) => [await startAuditRecordedConsumer(service)],
    onStart: (service) => ensureBootstrapSiteAdmin(depsOf(service), options.siteAdminToken),
  });
}
