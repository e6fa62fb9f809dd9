import { fileURLToPath } from 'node:url';
import { documented as doc, env, z } from '@policyhub/config';
import type { EventTransport } from '@policyhub/events';
import { InternalAuth, type SigningKey } from '@policyhub/grpc-runtime';
import {
  type DatabaseTimeouts,
  type RunningService,
  type ServiceDeps,
  startGrpcService,
} from '@policyhub/service-kit';
import type { Logger } from '@policyhub/telemetry';
import { startAuditRecordedConsumer } from './consumers/audit-recorded.js';
import type { Deps } from './deps.js';
import { registerAdminOrgs } from './server.js';
import {
  AuditRetention,
  type AuditRetentionSettings,
  DEFAULT_AUDIT_RETENTION,
} from './use-cases/audit-retention.js';
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
  /** Retention of the audit trail (default: a year, swept hourly). */
  auditRetention?: Partial<AuditRetentionSettings> | undefined;
  /** Statement and connect timeouts of the service's pool (default: the pool's). */
  databaseTimeouts?: DatabaseTimeouts | undefined;
  migrateOnly?: boolean;
}

/** The audit trail's retention (docs/api/audit-trail.md), in admin-orgs and in `npm start`. */
export const auditRetentionConfigShape = {
  AUDIT_RETENTION_DAYS: doc(
    env.int(DEFAULT_AUDIT_RETENTION.days, 0),
    "audit trail records older than this many days are deleted (`0` keeps them); an organization's deletion never deletes its records ([docs/api/audit-trail.md](api/audit-trail.md#retention))",
  ),
  AUDIT_RETENTION_INTERVAL_SECONDS: doc(
    env.int(DEFAULT_AUDIT_RETENTION.intervalMs / 1000, 1),
    'how often the audit retention sweep runs (batches of 1000 records)',
  ),
};

export const auditRetentionSettings = (config: {
  AUDIT_RETENTION_DAYS: number;
  AUDIT_RETENTION_INTERVAL_SECONDS: number;
}): AuditRetentionSettings => ({
  days: config.AUDIT_RETENTION_DAYS,
  intervalMs: config.AUDIT_RETENTION_INTERVAL_SECONDS * 1000,
});

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
  ...auditRetentionConfigShape,
};

export function startAdminOrgs(options: AdminOrgsOptions): Promise<RunningService> {
  // The use cases' Deps, built once from the pool and relay startGrpcService opens.
  let deps: Deps | undefined;
  const depsOf = ({ db, relay }: ServiceDeps): Deps => {
    deps ??= { db, relay };
    return deps;
  };
  let retention: AuditRetention | undefined;
  return startGrpcService({
    name: 'admin-orgs',
    schema: ADMIN_ORGS_SCHEMA,
    databaseUrl: options.databaseUrl,
    migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)),
    grpcAddress: options.grpcAddress,
    transport: options.transport,
    logger: options.logger,
    auth: new InternalAuth({ keys: options.signingKeys, service: 'admin-orgs' }),
    databaseTimeouts: options.databaseTimeouts,
    migrateOnly: options.migrateOnly,
    register: (server, service) => registerAdminOrgs(server, service, depsOf(service)),
    consumers: async (service) => [await startAuditRecordedConsumer(service)],
    onStart: async (service) => {
      await ensureBootstrapSiteAdmin(depsOf(service), options.siteAdminToken);
      retention = new AuditRetention(
        depsOf(service),
        { ...DEFAULT_AUDIT_RETENTION, ...options.auditRetention },
        service.logger,
      );
      retention.start();
    },
    onClose: async () => retention?.stop(),
  });
}
