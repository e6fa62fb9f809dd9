import { env, loadConfig, z } from '@policyhub/config';
import { createTransport, type EventTransport } from '@policyhub/events';
import { parseSigningKeys } from '@policyhub/grpc-runtime';
import { createLogger, shutdownTracing, startOpsServer } from '@policyhub/telemetry';
import type { RunningService } from './grpc-service.js';

/** Variables every service process reads (DESIGN §3). */
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
  KAFKA_BROKERS: env.brokers(),
  /** Failover bound after a crash: a consumer silent this long loses its partitions (≥ 6 s on real brokers). */
  KAFKA_SESSION_TIMEOUT_MS: env.int(30_000, 1_000),
  LOG_LEVEL: env.logLevel(),
  MIGRATE_ONLY: env.bool(false),
};

/**
 * The body of a service's main.ts in distributed mode: typed config → transport → service →
 * ops server (/healthz, /readyz, /metrics) → close everything on SIGTERM/SIGINT.
 */
export type BaseServiceConfig = z.infer<z.ZodObject<typeof serviceConfigShape>>;

export async function runServiceMain<S extends z.ZodRawShape>(
  name: string,
  shape: S,
  start: (
    config: BaseServiceConfig & z.infer<z.ZodObject<S>>,
    shared: { transport: EventTransport; logger: ReturnType<typeof createLogger> },
  ) => Promise<RunningService>,
): Promise<void> {
  let config: BaseServiceConfig & z.infer<z.ZodObject<S>>;
  try {
    config = loadConfig({ ...serviceConfigShape, ...shape }) as unknown as typeof config;
  } catch (err) {
    console.error(`${name}: ${(err as Error).message}`);
    process.exit(2);
  }
  const logger = createLogger(name, config.LOG_LEVEL);
  const transport = createTransport({
    brokers: config.KAFKA_BROKERS,
    clientId: name,
    logger,
    sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
  });
  const service = await start(config, { transport, logger });
  if (config.MIGRATE_ONLY) {
    logger.info('migrations done; exiting (MIGRATE_ONLY)');
    await transport.close();
    return;
  }
  const ops = await startOpsServer({
    port: config.OPS_PORT,
    host: config.OPS_HOST,
    isReady: () => service.isReady(),
  });
  const stop = async () => {
    logger.info('shutting down');
    ops.close();
    await service.close();
    await transport.close();
    // Spans still batched for the collector; resolves at once when tracing is off.
    await shutdownTracing();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}
