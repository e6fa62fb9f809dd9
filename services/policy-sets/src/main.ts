import { runServiceMain } from '@policyhub/service-kit';
import { policySetsConfigShape, startPolicySets } from './service.js';

await runServiceMain('policy-sets', policySetsConfigShape, (config, shared) =>
  startPolicySets({
    ...shared,
    databaseUrl: config.DATABASE_URL,
    grpcAddress: `${config.GRPC_HOST}:${config.GRPC_PORT}`,
    signingKeys: config.INTERNAL_SIGNING_KEYS,
    adminOrgsAddress: config.ADMIN_ORGS_ADDR,
    storageAddress: config.STORAGE_ADDR,
    parameterKeys: config.POLICY_SET_PARAMETER_KEYS,
    migrateOnly: config.MIGRATE_ONLY,
  }),
);
