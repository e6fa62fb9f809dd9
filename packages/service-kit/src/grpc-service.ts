import type * as grpc from '@grpc/grpc-js';
import { Db, type Migration, isConnectionError, readMigrationsDir, runMigrations } from '@policyhub/db';
import {
  type EventTransport,
  OutboxRelay,
  producesEvents,
  type Subscription,
  eventMigrations,
} from '@policyhub/events';
import {
  bindServer,
  createGrpcServer,
  type InternalAuth,
  serveInProcess,
  shutdownServer,
} from '@policyhub/grpc-runtime';
import type { Logger, ReadinessReport } from '@policyhub/telemetry';
import { addHealthService } from './health.js';
import { type ReadinessSettings, serviceReadiness } from './readiness.js';

/** What a service's composition hands to its RPC handlers and consumers. */
export interface ServiceDeps {
  db: Db;
  relay: OutboxRelay;
  transport: EventTransport;
  logger: Logger;
  /** Verifies incoming calls and signs this service's own outgoing ones. */
  auth: InternalAuth;
  /** Maps "Postgres is down" to a 503 instead of a 500. */
  isUnavailable: (err: unknown) => boolean;
}

export interface GrpcServiceOptions {
  name: string;
  /** Postgres schema owned by the service (snake_case of its name). */
  schema: string;
  databaseUrl: string;
  migrationsDir: string;
  /** host:port; port 0 picks a free one. */
  grpcAddress: string;
  transport: EventTransport;
  logger: Logger;
  auth: InternalAuth;
  /** Adds the service's gRPC services to the (unbound) server. */
  register(server: grpc.Server, deps: ServiceDeps): void;
  /** Starts the service's event consumers. */
  consumers?(deps: ServiceDeps): Promise<Subscription[]>;
  /** Extra start work after migrations (e.g. bootstrap data), before serving. */
  onStart?(deps: ServiceDeps): Promise<void>;
  /** Extra shutdown work. */
  onClose?(): Promise<void>;
  poolSize?: number;
  /** Statement and connect timeouts of the pool (default DEFAULT_DATABASE_TIMEOUTS). */
  databaseTimeouts?: DatabaseTimeouts | undefined;
  migrateOnly?: boolean;
}

/** DATABASE_STATEMENT_TIMEOUT_MS and DATABASE_CONNECT_TIMEOUT_MS, as the pool takes them. */
export interface DatabaseTimeouts {
  statementTimeoutMs: number;
  connectTimeoutMs: number;
}

export interface RunningService {
  name: string;
  address: string;
  db: Db;
  relay: OutboxRelay;
  /** Ready when every required dependency is up (database; bus and outbox if it produces events). */
  isReady(): Promise<boolean>;
  /** Each dependency and its state, for `/readyz` (readiness.ts). */
  readiness(settings?: Partial<ReadinessSettings>): Promise<ReadinessReport>;
  /** The thresholds `readiness()` and the gRPC health service use when none are given. */
  useReadinessSettings(settings: Partial<ReadinessSettings>): void;
  close(): Promise<void>;
}

/**
 * The shared lifecycle of a gRPC service: pool on its own schema → migrations (event tables +
 * its own) under an advisory lock → outbox relay → consumers → gRPC server (with grpc.health.v1)
 * bound. close() undoes
 * it in reverse order, draining in-flight calls first.
 */
export async function startGrpcService(options: GrpcServiceOptions): Promise<RunningService> {
  const { logger } = options;
  const db = new Db({
    url: options.databaseUrl,
    schema: options.schema,
    max: options.poolSize ?? 10,
    ...options.databaseTimeouts,
  });
  const migrations: Migration[] = [...eventMigrations, ...readMigrationsDir(options.migrationsDir)];
  const applied = await runMigrations(db, migrations);
  if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  const relay = new OutboxRelay({ db, transport: options.transport, logger });
  const deps: ServiceDeps = {
    db,
    relay,
    transport: options.transport,
    logger,
    auth: options.auth,
    isUnavailable: isConnectionError,
  };

  if (options.migrateOnly) {
    await db.close();
    const notServing = async (): Promise<ReadinessReport> => ({ ready: false, checks: {} });
    return {
      name: options.name,
      address: '',
      db,
      relay,
      isReady: async () => false,
      readiness: notServing,
      useReadinessSettings: () => {},
      close: async () => {},
    };
  }

  await options.onStart?.(deps);
  await relay.start();
  const subscriptions = (await options.consumers?.(deps)) ?? [];
  const server = createGrpcServer();
  const services: Array<[grpc.ServiceDefinition, grpc.UntypedServiceImplementation]> = [];
  const addService = server.addService.bind(server);
  server.addService = (definition, implementation) => {
    services.push([definition, implementation]);
    addService(definition, implementation);
  };
  options.register(server, deps);
  let readinessSettings: Partial<ReadinessSettings> | undefined;
  const readiness = (settings?: Partial<ReadinessSettings>) =>
    serviceReadiness(
      { db, relay, transport: options.transport, producesEvents: producesEvents(options.name) },
      settings ?? readinessSettings,
    );
  const health = addHealthService(
    server,
    services.map(([definition]) => definition),
    { isReady: async () => (await readiness()).ready },
  );
  const address = await bindServer(server, options.grpcAddress);
  // Embedded mode: the same handlers for callers in this process, without HTTP/2 (ADR 0033).
  const withdrawInProcess = serveInProcess(address, services);
  logger.info({ address }, `${options.name} serving gRPC`);

  return {
    name: options.name,
    address,
    db,
    relay,
    isReady: async () => (await readiness()).ready,
    readiness,
    useReadinessSettings(settings) {
      readinessSettings = settings;
    },
    async close() {
      health.shutdown();
      withdrawInProcess();
      await shutdownServer(server);
      for (const s of subscriptions) await s.close();
      await relay.stop();
      await options.onClose?.();
      await db.close();
    },
  };
}
