import { documented as doc, env, loadConfig, z } from '@policyhub/config';
import { createTransport, describeTransport, EventRetention, type EventTransport } from '@policyhub/events';
import { parseSigningKeys } from '@policyhub/grpc-runtime';
import { createLogger, shutdownTracing, startOpsServer } from '@policyhub/telemetry';
import {
  kafkaClientSettings,
  kafkaConfigShape,
  readinessConfigShape,
  readinessSettings,
  retentionConfigShape,
  retentionSettings,
} from './event-config.js';
import { databaseTimeoutsConfigShape, databaseTimeoutsOf } from './database-config.js';
import type { DatabaseTimeouts, RunningService } from './grpc-service.js';

/** Variables every service process reads. */
export const serviceConfigShape = {
  DATABASE_URL: doc(
    z.string().url('must be a postgres:// URL'),
    '`postgres://` URL; each service uses its own schema (`admin_orgs`, `policy_sets`, `runs`, `storage`)',
  ),
  // Loopback by default; deployments set 0.0.0.0 explicitly (compose, Kubernetes).
  GRPC_HOST: doc(z.string().default('127.0.0.1'), 'gRPC listen interface (containers set `0.0.0.0`)'),
  GRPC_PORT: doc(
    env.port(50051),
    "gRPC port (the gateway's defaults expect policy-sets on 50052, runs on 50053, storage on 50054: set these when services share a host; the compose file and Kubernetes manifests use 50051 everywhere)",
  ),
  OPS_PORT: doc(
    env.port(9464),
    '`/healthz`, `/readyz`, `/metrics` ([what each means](../deploy/README.md#health-and-readiness))',
  ),
  OPS_HOST: doc(z.string().default('127.0.0.1'), 'interface of the ops server (containers set `0.0.0.0`)'),
  INTERNAL_SIGNING_KEYS: doc(
    env.parsed(
      parseSigningKeys,
      'is required: <id>:<secret> (32+ characters), shared by the gateway and every service',
    ),
    '`<id>:<secret>` (secret ≥ 32 characters), comma-separated during a rotation (the first signs): the key every internal call is signed with, the same in the gateway and every service ([docs/security.md](security.md))',
  ),
  ...kafkaConfigShape,
  KAFKA_SESSION_TIMEOUT_MS: doc(
    env.int(30_000, 1_000),
    'Kafka consumer session timeout: a consumer silent this long loses its partitions (failover bound after a crash; real brokers need ≥ 6 s)',
    '`30000` (at least `1000`)',
  ),
  ...retentionConfigShape,
  ...readinessConfigShape,
  ...databaseTimeoutsConfigShape,
  LOG_LEVEL: doc(env.logLevel(), '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`'),
  MIGRATE_ONLY: doc(env.bool(false), "run the service's migrations and exit (needs no Kafka)"),
};

/**
 * The body of a service's main.ts in distributed mode: typed config → transport → service →
 * ops server (/healthz, /readyz, /metrics) → close everything on SIGTERM/SIGINT.
 */
export type BaseServiceConfig = z.infer<z.ZodObject<typeof serviceConfigShape>>;

/**
 * A separate process never hosts every consumer, so in-process events would be marked sent and
 * lost: without brokers it refuses to start (only migrations need no bus).
 */
const NO_BUS =
  'KAFKA_BROKERS is required: a service in its own process exchanges events only through Kafka ' +
  '(npm start runs every service in one process with in-process events)';

export async function runServiceMain<S extends z.ZodRawShape>(
  name: string,
  shape: S,
  start: (
    config: BaseServiceConfig & z.infer<z.ZodObject<S>>,
    shared: {
      transport: EventTransport;
      logger: ReturnType<typeof createLogger>;
      databaseTimeouts: DatabaseTimeouts;
    },
  ) => Promise<RunningService>,
): Promise<void> {
  let config: BaseServiceConfig & z.infer<z.ZodObject<S>>;
  let kafka: ReturnType<typeof kafkaClientSettings>;
  try {
    config = loadConfig({ ...serviceConfigShape, ...shape }) as unknown as typeof config;
    kafka = kafkaClientSettings(config);
  } catch (err) {
    console.error(`${name}: ${(err as Error).message}`);
    process.exit(2);
  }
  if (!config.MIGRATE_ONLY && !config.KAFKA_BROKERS?.length) {
    console.error(`${name}: ${NO_BUS}`);
    process.exit(2);
  }
  const logger = createLogger(name, config.LOG_LEVEL);
  const transport = createTransport({
    brokers: config.KAFKA_BROKERS,
    clientId: name,
    logger,
    sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
    kafka,
  });
  if (!config.MIGRATE_ONLY) {
    logger.info(
      { mode: 'distributed', ...describeTransport(transport, { brokers: config.KAFKA_BROKERS, kafka }) },
      'event bus',
    );
    if (kafka.sasl?.mechanism === 'plain' && !kafka.ssl) {
      logger.warn('KAFKA_SASL_MECHANISM=plain without KAFKA_SSL sends the Kafka password in clear text');
    }
  }
  const service = await start(config, { transport, logger, databaseTimeouts: databaseTimeoutsOf(config) });
  if (config.MIGRATE_ONLY) {
    logger.info('migrations done; exiting (MIGRATE_ONLY)');
    await transport.close();
    return;
  }
  const retention = new EventRetention({ db: service.db, logger, settings: retentionSettings(config) });
  retention.start();
  const readiness = readinessSettings(config);
  service.useReadinessSettings(readiness);
  const ops = await startOpsServer({
    port: config.OPS_PORT,
    host: config.OPS_HOST,
    isReady: () => service.readiness(readiness),
  });
  const stop = async () => {
    logger.info('shutting down');
    ops.close();
    await retention.stop();
    await service.close();
    await transport.close();
    // Spans still batched for the collector; resolves at once when tracing is off.
    await shutdownTracing();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}
