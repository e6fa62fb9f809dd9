import { ConfigError, loadConfig } from '@policyhub/config';
import { shutdownTracing } from '@policyhub/telemetry';
import { bodyLimitsOf } from '@policyhub/gateway';
import { parseCommand } from '@policyhub/evaluator';
import { embeddedConfigShape } from './config.js';
import { databaseTimeoutsOf } from '@policyhub/service-kit';
import { EmbeddedPostgresError } from './postgres.js';
import { listenProblem, listenProblems, splitAddress } from './preflight.js';
import { startSystem } from './system.js';

let config: ReturnType<typeof loadConfig<typeof embeddedConfigShape>>;
let evaluatorCommand: string[] | undefined;
try {
  config = loadConfig(embeddedConfigShape);
  evaluatorCommand = config.EVALUATOR_COMMAND ? parseCommand(config.EVALUATOR_COMMAND) : undefined;
} catch (err) {
  console.error((err as Error).message);
  process.exit(2);
}

// Busy ports are found before anything starts: one line each, exit 2, no data directory touched.
const runsListen = splitAddress(config.RUNS_GRPC_ADDR);
const busy = await listenProblems([
  { variable: 'PORT', host: config.HOST, port: config.PORT, shown: String(config.PORT) },
  { variable: 'RUNS_GRPC_ADDR', ...runsListen, shown: config.RUNS_GRPC_ADDR },
  { variable: 'OPS_PORT', host: config.OPS_HOST, port: config.OPS_PORT, shown: String(config.OPS_PORT) },
]);
if (busy.length > 0) {
  for (const line of busy) console.error(line);
  process.exit(2);
}

const system = await startSystem({
  port: config.PORT,
  host: config.HOST,
  dataDir: config.DATA_DIR,
  databaseUrl: config.DATABASE_URL,
  kafkaBrokers: config.KAFKA_BROKERS,
  redisUrl: config.REDIS_URL,
  rateLimitPerSecond: config.RATE_LIMIT_PER_SECOND,
  authFailureLimit: config.AUTH_FAILURE_LIMIT,
  authFailureWindowSeconds: config.AUTH_FAILURE_WINDOW_SECONDS,
  opsPort: config.OPS_PORT,
  opsHost: config.OPS_HOST,
  siteAdminToken: config.SITE_ADMIN_TOKEN,
  publicUrl: config.PUBLIC_URL,
  allowedHosts: config.ALLOWED_HOSTS,
  trustProxy: config.TRUST_PROXY,
  bodyLimits: bodyLimitsOf(config),
  databaseTimeouts: databaseTimeoutsOf(config),
  logLevel: config.LOG_LEVEL,
  runsGrpcAddress: config.RUNS_GRPC_ADDR,
  evaluator: config.EVALUATOR_ENABLED
    ? {
        environment: { ...process.env, SENTINEL_BIN: config.SENTINEL_BIN, OPA_BIN: config.OPA_BIN },
        command: evaluatorCommand,
        concurrency: config.EVALUATOR_CONCURRENCY,
        wakeUps: config.EVALUATOR_WAKE_UPS,
      }
    : undefined,
  apiVocabulary: config.API_VOCABULARY,
}).catch((err: unknown) => {
  // A bad variable read by a service (e.g. storage limits) is a configuration error like the rest.
  if (err instanceof ConfigError || err instanceof EmbeddedPostgresError) {
    console.error(err.message);
    process.exit(2);
  }
  // Taken between the check above and the listen (another process was faster).
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE' || code === 'EACCES') {
    console.error(listenProblem('PORT', String(config.PORT), err as NodeJS.ErrnoException));
    process.exit(2);
  }
  throw err;
});

// The one place the token is printed: on the operator's own terminal, never in the logs.
process.stdout.write(
  `\nPolicyHub is running\n  base URL:          ${config.PUBLIC_URL ?? system.baseUrl}/api/v2\n  site-admin token:  ${system.siteAdminToken}\n` +
    `  runs gRPC (for evaluators, RUNS_ADDR): ${system.services.runs?.address ?? 'n/a'}\n` +
    `  evaluator token (EVALUATOR_TOKEN):    in ${config.DATA_DIR}/evaluator-token\n` +
    `  ops (/healthz, /readyz, /metrics):    ${system.opsUrl}\n` +
    `  policy engines:    ${
      system.evaluatorEngines?.join('\n                     ') ??
      'built-in evaluator off (EVALUATOR_ENABLED=false)'
    }\n\n`,
);

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  system.logger.info({ signal }, 'stopping');
  await system.close();
  await shutdownTracing();
  process.exit(0);
};
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
