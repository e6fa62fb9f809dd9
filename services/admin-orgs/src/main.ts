import { runServiceMain } from '@policyhub/service-kit';
import { adminOrgsConfigShape, auditRetentionSettings, startAdminOrgs } from './service.js';

await runServiceMain('admin-orgs', adminOrgsConfigShape, (config, shared) =>
  startAdminOrgs({
    ...shared,
    databaseUrl: config.DATABASE_URL,
    grpcAddress: `${config.GRPC_HOST}:${config.GRPC_PORT}`,
    signingKeys: config.INTERNAL_SIGNING_KEYS,
    siteAdminToken: config.SITE_ADMIN_TOKEN,
    auditRetention: auditRetentionSettings(config),
    migrateOnly: config.MIGRATE_ONLY,
  }),
);
