import { runServiceMain } from '@policyhub/service-kit';
import { storageConfigShape, storageSettings } from './config.js';
import { startStorage } from './service.js';

await runServiceMain('storage', storageConfigShape, (config, shared) =>
  startStorage({
    ...shared,
    databaseUrl: config.DATABASE_URL,
    grpcAddress: `${config.GRPC_HOST}:${config.GRPC_PORT}`,
    signingKeys: config.INTERNAL_SIGNING_KEYS,
    settings: storageSettings(config),
    adminOrgsAddress: config.ADMIN_ORGS_ADDR,
    migrateOnly: config.MIGRATE_ONLY,
  }),
);
