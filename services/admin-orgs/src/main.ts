import { z } from '@policyhub/config';
import { runServiceMain } from '@policyhub/service-kit';
import { startAdminOrgs } from './service.js';

await runServiceMain(
  'admin-orgs',
  { SITE_ADMIN_TOKEN: z.string().min(20, 'must be at least 20 characters').optional() },
  (config, shared) =>
    startAdminOrgs({
      ...shared,
      databaseUrl: config.DATABASE_URL,
      grpcAddress: `${config.GRPC_HOST}:${config.GRPC_PORT}`,
      signingKeys: config.INTERNAL_SIGNING_KEYS,
      siteAdminToken: config.SITE_ADMIN_TOKEN,
      migrateOnly: config.MIGRATE_ONLY,
    }),
);
