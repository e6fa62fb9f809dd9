import { loadConfig } from '@policyhub/config';
import { InternalAuth } from '@policyhub/grpc-runtime';
import { createLogger, readinessReport, shutdownTracing, startOpsServer } from '@policyhub/telemetry';
import { buildApp } from './app.js';
import { createClients } from './clients/index.js';
import { bodyLimitsOf, gatewayConfigShape } from './config.js';
import { createEdgeStores } from './edge-stores.js';
import { backendReadiness } from './readiness.js';

let config: ReturnType<typeof loadConfig<typeof gatewayConfigShape>>;
try {
  config = loadConfig(gatewayConfigShape);
} catch (err) {
  console.error(`gateway: ${(err as Error).message}`);
  process.exit(2);
}
const logger = createLogger('gateway', config.LOG_LEVEL);
const clients = createClients(
  {
    adminOrgs: config.ADMIN_ORGS_ADDR,
    policySets: config.POLICY_SETS_ADDR,
    runs: config.RUNS_ADDR,
    storage: config.STORAGE_ADDR,
  },
  new InternalAuth({ keys: config.INTERNAL_SIGNING_KEYS, service: 'gateway' }).credential,
);
const stores = createEdgeStores({ redisUrl: config.REDIS_URL, logger });
const app = await buildApp({
  clients,
  logger,
  publicUrl: config.PUBLIC_URL,
  allowedHosts: config.ALLOWED_HOSTS,
  bodyLimit: config.REQUEST_BODY_LIMIT,
  bodyLimits: bodyLimitsOf(config),
  trustProxy: config.TRUST_PROXY,
  vocabulary: config.API_VOCABULARY,
  validateResponses: config.VALIDATE_RESPONSES,
  principalCache: stores.principalCache,
  rateLimits: {
    requestsPerWindow: config.RATE_LIMIT_PER_SECOND,
    authFailures: config.AUTH_FAILURE_LIMIT,
    authFailureWindowMs: config.AUTH_FAILURE_WINDOW_SECONDS * 1000,
    redis: stores.redis,
  },
});
await app.listen({ port: config.PORT, host: config.HOST });
let stopping = false;
// Health, readiness and metrics on their own listener, never on the public port.
const backends = backendReadiness(clients);
const ops = await startOpsServer({
  port: config.OPS_PORT,
  host: config.OPS_HOST,
  isReady: async () =>
    stopping
      ? readinessReport({ gateway: { status: 'down', required: true, detail: 'shutting down' } })
      : backends(),
});
// The gateway writes and reads no events: it is the same in every mode, only its backends differ.
logger.info(
  { port: config.PORT, opsPort: config.OPS_PORT, mode: 'distributed', events: 'none (stateless edge)' },
  'gateway listening',
);

const stop = async () => {
  logger.info('shutting down');
  stopping = true;
  ops.close();
  await app.close();
  clients.close();
  await stores.close();
  await shutdownTracing();
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
