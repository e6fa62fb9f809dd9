import { env, loadConfig, z } from '@policyhub/config';
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
import type { RunningService } from './grpc-service.js';

/** Variables every service process reads. */
export const serviceConfigShape = {
  DATABASE_URL: z.string().url('must be a postgres:// URL'),
  /** Loopback by default; deployments set 0.0.0.0 explicitly (compose, Kubernetes). */
  GRPC_HOST: z.string().default('127.0.0.1'),
  GRPC_PORT: env.port(50051),
  OPS_PORT: env.port(9464),
  /** Interface of the ops server (/healthz, /readyz, /metrics); loopback unless set. */
  OPS_HOST: z.string().default('127.0.0.1'),
  /** Shared HMAC keys of internal calls (`<id>:<secret>,…`; the first signs). docs/security.md */
  INTERNAL_SIGNING_KEYS: env.parsed(
    parseSigningKeys,
    'is required: <id>:<secret> (32+ characters), shared by the gateway and every service',
  ),
  ...kafkaConfigShape,
  /** Failover bound after a crash: a consumer silent this long loses its partitions (≥ 6 s on real brokers). */
  KAFKA_SESSION_TIMEOUT_MS: env.int(30_000, 1_000),
  ...retentionConfigShape,
  ...readinessConfigShape,
  LOG_LEVEL: env.logLevel(),
  MIGRATE_ONLY: env.bool(false),
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
    shared: { transport: EventTransport; logger: ReturnType<typeof createLogger> },
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
  const service = await start(config, { transport, logger });
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
