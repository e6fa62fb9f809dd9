import { env } from '@policyhub/config';
import { runServiceMain } from '@policyhub/service-kit';
import { startRuns } from './service.js';

await runServiceMain(
  'runs',
  {
    ADMIN_ORGS_ADDR: env.address('127.0.0.1:50051'),
    POLICY_SETS_ADDR: env.address('127.0.0.1:50052'),
    STORAGE_ADDR: env.address('127.0.0.1:50054'),
  },
  (config, shared) =>
    startRuns({
      ...shared,
      databaseUrl: config.DATABASE_URL,
      grpcAddress: `${config.GRPC_HOST}:${config.GRPC_PORT}`,
      adminOrgsAddress: config.ADMIN_ORGS_ADDR,
      policySetsAddress: config.POLICY_SETS_ADDR,
      storageAddress: config.STORAGE_ADDR,
      migrateOnly: config.MIGRATE_ONLY,
    }),
);
