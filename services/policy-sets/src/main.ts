import { env } from '@policyhub/config';
import { runServiceMain } from '@policyhub/service-kit';
import { startPolicySets } from './service.js';

await runServiceMain(
  'policy-sets',
  { ADMIN_ORGS_ADDR: env.address('127.0.0.1:50051'), STORAGE_ADDR: env.address('127.0.0.1:50054') },
  (config, shared) =>
    startPolicySets({
      ...shared,
      databaseUrl: config.DATABASE_URL,
      grpcAddress: `${config.GRPC_HOST}:${config.GRPC_PORT}`,
      signingKeys: config.INTERNAL_SIGNING_KEYS,
      adminOrgsAddress: config.ADMIN_ORGS_ADDR,
      storageAddress: config.STORAGE_ADDR,
      migrateOnly: config.MIGRATE_ONLY,
    }),
);
