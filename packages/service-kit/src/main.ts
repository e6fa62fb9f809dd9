import { env, loadConfig, z } from '@policyhub/config';
import { createTransport, type EventTransport } from '@policyhub/events';
import { createLogger, shutdownTracing, startOpsServer } from '@policyhub/telemetry';
import type { RunningService } from './grpc-service.js';

/** Variables every service process reads (DESIGN §3). */
export const serviceConfigShape = {
  DATABASE_URL: z.string().url('must be a postgres:// URL'),
  GRPC_HOST: z.string().default('0.0.0.0'),
  GRPC_PORT: env.port(50051),
  OPS_PORT: env.port(9464),
  /** Interface of the ops server (/healthz, /readyz, /metrics); 127.0.0.1 keeps it off the network. */
  OPS_HOST: z.string().default('0.0.0.0'),
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
