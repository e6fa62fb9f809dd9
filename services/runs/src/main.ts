import { runServiceMain } from '@policyhub/service-kit';
import { runsProcessConfigShape, startRuns } from './service.js';

await runServiceMain('runs', runsProcessConfigShape, (config, shared) => {
  if (!config.EVALUATOR_TOKENS?.length && !config.MIGRATE_ONLY) {
    shared.logger.warn('EVALUATOR_TOKENS is not set: no evaluator can claim policy checks');
  }
  return startRuns({
    ...shared,
    databaseUrl: config.DATABASE_URL,
    grpcAddress: `${config.GRPC_HOST}:${config.GRPC_PORT}`,
    signingKeys: config.INTERNAL_SIGNING_KEYS,
    workerTokens: { evaluator: config.EVALUATOR_TOKENS, executor: config.EXECUTOR_TOKENS },
    adminOrgsAddress: config.ADMIN_ORGS_ADDR,
    policySetsAddress: config.POLICY_SETS_ADDR,
    storageAddress: config.STORAGE_ADDR,
    planMaxBytes: config.PLAN_MAX_BYTES,
    migrateOnly: config.MIGRATE_ONLY,
  });
});
