import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { auditRetentionConfigShape, auditRetentionSettings, startAdminOrgs } from '@policyhub/admin-orgs';
import {
  generateParameterKey,
  parseParameterKeys,
  policySetsConfigShape,
  startPolicySets,
} from '@policyhub/policy-sets';
import { detectEngines, EvaluatorWorker } from '@policyhub/evaluator';
import { listenForQueuedChecks, runsConfigShape, startRuns } from '@policyhub/runs';
import { startStorage, storageConfigShape, storageSettings } from '@policyhub/storage';
import { loadConfig } from '@policyhub/config';
import {
  createTransport,
  describeTransport,
  EventRetention,
  type EventTransport,
  InProcessTransport,
  type KafkaTransportOptions,
} from '@policyhub/events';
import {
  type BodyLimitOptions,
  buildApp,
  createClients,
  createEdgeStores,
  type VocabularyProfile,
} from '@policyhub/gateway';
import {
  enableInProcessCalls,
  generateSigningKeys,
  InternalAuth,
  type SigningKey,
} from '@policyhub/grpc-runtime';
import {
  type DatabaseTimeouts,
  kafkaClientSettings,
  kafkaConfigShape,
  type ReadinessSettings,
  readinessConfigShape,
  readinessSettings,
  type RunningService,
  retentionConfigShape,
  retentionSettings,
} from '@policyhub/service-kit';
import {
  createLogger,
  type DependencyCheck,
  type Logger,
  readinessReport,
  startOpsServer,
} from '@policyhub/telemetry';
import type { FastifyInstance } from 'fastify';
import { type EmbeddedPostgresHandle, startEmbeddedPostgres } from './postgres.js';

export interface SystemOptions {
  /** Gateway port; 0 picks a free one. */
  port?: number;
  host?: string;
  dataDir?: string;
  /** Use this Postgres instead of starting the embedded one. */
  databaseUrl?: string | undefined;
  kafkaBrokers?: string[] | undefined;
  /**
   * Kafka producer idempotence, TLS and SASL; default from KAFKA_IDEMPOTENT, KAFKA_SSL… of the
   * environment. Tests against the mock broker pass `{ idempotent: false }`.
   */
  kafka?: Pick<KafkaTransportOptions, 'idempotent' | 'ssl' | 'sasl'> | undefined;
  /** Gateway principal cache and rate limits in this Redis (else in memory). */
  redisUrl?: string | undefined;
  /** Requests per second per token; unset or 0 disables rate limiting (`npm start` passes 30). */
  rateLimitPerSecond?: number | undefined;
  /**
   * Failed authentications per client address and window before further unknown tokens from it
   * get 429; unset or 0 disables it (`npm start` passes 20).
   */
  authFailureLimit?: number | undefined;
  /** That window in seconds (default 60). */
  authFailureWindowSeconds?: number | undefined;
  /** Reverse proxies in front (addresses or CIDRs): their X-Forwarded-For names the client. */
  trustProxy?: string[] | undefined;
  /** Body time limits and open bodies per address (BODY_TIMEOUT_SECONDS, …); default the gateway's. */
  bodyLimits?: Partial<BodyLimitOptions> | undefined;
  /** Ops listener (/healthz, /readyz, /metrics) port; default 0, a free one (`opsUrl` shows it). */
  opsPort?: number;
  /** Ops listener interface; default 127.0.0.1. */
  opsHost?: string;
  siteAdminToken?: string | undefined;
  /**
   * Keys of internal call assertions and of upload and plan log URL tokens (INTERNAL_SIGNING_KEYS'
   * form: the first signs, every one verifies). Default: one generated for this process, so URLs
   * handed out before a restart stop working (re-reading the resource gives a fresh one).
   */
  signingKeys?: readonly SigningKey[] | undefined;
  /** Base URL of absolute links; unset: an allowed Host, else the address a request arrived on. */
  publicUrl?: string | undefined;
  /** Host names (optionally `:port`) the API answers to (ALLOWED_HOSTS); any other Host gets 400. */
  allowedHosts?: readonly string[] | undefined;
  /** Where the runs service's internal gRPC API (executors, `npm run evaluator`) listens; default a free loopback port. */
  runsGrpcAddress?: string | undefined;
  logLevel?: string;
  /**
   * The built-in evaluator: an in-process worker against the runs service (docs/policy-evaluation.md).
   * `npm start` turns it on unless EVALUATOR_ENABLED=false; absent here means none.
   */
  evaluator?: EmbeddedEvaluatorOptions | undefined;
  /**
   * Unary calls between the gateway and the services of this process skip HTTP/2 and the signed
   * assertion (ADR 0033); default true. false sends every call over loopback gRPC.
   */
  inProcessCalls?: boolean | undefined;
  /** Wire vocabulary of API responses (`API_VOCABULARY`): the spec's names (default) or upstream's. */
  apiVocabulary?: VocabularyProfile | undefined;
  /** Check every API response against its route's schema (the e2e suite's mode, ADR 0031). */
  validateResponses?: boolean | undefined;
  /** How long a policy set version's upload URL works; the spec's hour unless a test shortens it. */
  uploadUrlTtlMs?: number | undefined;
  /**
   * Retention of the audit trail: records older than `days` (0 keeps them) are deleted every
   * `intervalMs`; default from AUDIT_RETENTION_DAYS and AUDIT_RETENTION_INTERVAL_SECONDS.
   */
  auditRetention?: { days?: number; intervalMs?: number } | undefined;
  /** Statement and connect timeouts of every service's pool (DATABASE_*_TIMEOUT_MS); default the pool's. */
  databaseTimeouts?: DatabaseTimeouts | undefined;
  /** Where every service writes its log lines (default stdout); tests pass a stream to read them. */
  logDestination?: Parameters<typeof createLogger>[2];
}

export interface EmbeddedEvaluatorOptions {
  /** Environment the engines are looked up in (SENTINEL_BIN, OPA_BIN, PATH); default process.env. */
  environment?: Record<string, string | undefined>;
  /** A generic engine command (EVALUATOR_COMMAND) for checks of every kind. */
  command?: string[] | undefined;
  pollIntervalMs?: number;
  leaseSeconds?: number;
  timeoutMs?: number;
  /** Checks evaluated at once (EVALUATOR_CONCURRENCY); default 1. */
  concurrency?: number;
  /** Claim as soon as runs notifies a queued check (EVALUATOR_WAKE_UPS); default true. */
  wakeUps?: boolean;
}

export interface RunningSystem {
  baseUrl: string;
  /** Base URL of the ops listener: `/healthz`, `/readyz`, `/metrics` (not on `baseUrl`). */
  opsUrl: string;
  siteAdminToken: string;
  /** Credentials of external evaluators and executors on the runs gRPC API (kept in DATA_DIR). */
  workerTokens: { evaluator: string; executor: string };
  databaseUrl: string;
  services: Record<string, RunningService>;
  app: FastifyInstance;
  transport: EventTransport;
  logger: Logger;
  /** The engines the built-in evaluator found (one line per kind); undefined when it is off. */
  evaluatorEngines: string[] | undefined;
  close(): Promise<void>;
}

const LOOPBACK = '127.0.0.1:0';

/** `http://host:port` of a listening server (the port it actually got, when asked for 0). */
function urlOf(host: string, address: string | AddressInfo | null, port: number): string {
  const actual = typeof address === 'object' && address ? address.port : port;
  return `http://${host.includes(':') ? `[${host}]` : host}:${actual}`;
}

/** A secret generated once and kept in `DATA_DIR/<name>` (mode 0600), unless configured. */
function persistentSecret(dataDir: string, name: string, configured?: string | undefined): string {
  if (configured) return configured;
  const file = join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const token = `ph.${randomBytes(32).toString('base64url')}`;
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
}

/**
 * The key sealing sensitive policy set parameters when POLICY_SET_PARAMETER_KEYS is not set:
 * generated once into DATA_DIR (0600) and kept, like the site-admin token (docs/security.md).
 */
function persistentParameterKey(dataDir: string): string {
  const file = join(dataDir, 'policy-set-parameter-key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const key = generateParameterKey();
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}

/**
 * Embedded mode: every service in this process, each with its own gRPC server on loopback (unary
 * calls between them in-process unless `inProcessCalls` is false, ADR 0033), the gateway on `port`, Postgres from DATABASE_URL or embedded, events in-process unless Kafka
 * brokers are given. close() stops everything in reverse order, Postgres last.
 */
export async function startSystem(options: SystemOptions = {}): Promise<RunningSystem> {
  const logLevel = options.logLevel ?? 'info';
  const logger = createLogger('policyhub', logLevel, options.logDestination);
  const dataDir = resolve(options.dataDir ?? '.data');
  // Validated before anything starts, so a bad variable fails fast (objects under <dataDir>/objects
  // unless S3_ENDPOINT is set; upload limits from the environment).
  const storageConfig = storageSettings(
    loadConfig(storageConfigShape, { ...process.env, DATA_DIR: dataDir }),
  );
  const runsConfig = loadConfig(runsConfigShape, process.env);
  const policySetsConfig = loadConfig(policySetsConfigShape, process.env);
  const auditRetention = {
    ...auditRetentionSettings(loadConfig(auditRetentionConfigShape, process.env)),
    ...options.auditRetention,
  };
  // Event-table retention, readiness and Kafka client settings: the variables services read.
  const eventsConfig = loadConfig({ ...retentionConfigShape, ...readinessConfigShape }, process.env);
  const kafka = options.kafka ?? kafkaClientSettings(loadConfig(kafkaConfigShape, process.env));
  const readiness: ReadinessSettings = readinessSettings(eventsConfig);
  const started: Array<{ close(): Promise<void> }> = [];
  let stopEvaluator: (() => Promise<void>) | undefined;
  let postgres: EmbeddedPostgresHandle | undefined;
  try {
    let databaseUrl = options.databaseUrl;
    if (!databaseUrl) {
      postgres = await startEmbeddedPostgres(dataDir, logger);
      databaseUrl = postgres.url;
    }
    const token = persistentSecret(dataDir, 'site-admin-token', options.siteAdminToken);
    // Internal calls are signed with a key that lives only in this process (ADR 0009); workers
    // outside it (npm run evaluator, executors) present the tokens kept in DATA_DIR.
    const signingKeys = options.signingKeys ?? generateSigningKeys();
    const workerTokens = {
      evaluator: persistentSecret(dataDir, 'evaluator-token'),
      executor: persistentSecret(dataDir, 'executor-token'),
    };
    // In-process events are held until every consumer below has subscribed (see open() further down).
    const transport = createTransport({
      brokers: options.kafkaBrokers,
      clientId: 'policyhub',
      logger,
      kafka,
      holdUntilOpen: true,
    });
    // Every consumer runs in this process, so in-process events lose nothing (unlike a lone service).
    logger.info(
      { mode: 'embedded', ...describeTransport(transport, { brokers: options.kafkaBrokers, kafka }) },
      'event bus',
    );
    // Unary calls between the gateway and the services of this process skip HTTP/2 and the
    // assertion (ADR 0033); the gRPC ports still serve (and verify) everything from outside.
    if (options.inProcessCalls ?? true) enableInProcessCalls();
    const shared = {
      databaseUrl,
      grpcAddress: LOOPBACK,
      transport,
      signingKeys,
      databaseTimeouts: options.databaseTimeouts,
    };
    const serviceLogger = (name: string) => createLogger(name, logLevel, options.logDestination);

    const adminOrgs = await startAdminOrgs({
      ...shared,
      logger: serviceLogger('admin-orgs'),
      siteAdminToken: token,
      auditRetention,
    });
    started.push(adminOrgs);
    const services: Record<string, RunningService> = { 'admin-orgs': adminOrgs };

    // Objects under <dataDir>/objects unless S3_ENDPOINT is set; upload limits from the environment.
    const storage = await startStorage({
      ...shared,
      logger: serviceLogger('storage'),
      settings: storageConfig,
      adminOrgsAddress: adminOrgs.address,
    });
    started.push(storage);
    services.storage = storage;

    const policySets = await startPolicySets({
      ...shared,
      logger: serviceLogger('policy-sets'),
      adminOrgsAddress: adminOrgs.address,
      storageAddress: storage.address,
      uploadUrlTtlMs: options.uploadUrlTtlMs,
      parameterKeys:
        policySetsConfig.POLICY_SET_PARAMETER_KEYS ?? parseParameterKeys(persistentParameterKey(dataDir)),
    });
    started.push(policySets);
    services['policy-sets'] = policySets;

    const runs = await startRuns({
      ...shared,
      grpcAddress: options.runsGrpcAddress ?? LOOPBACK,
      logger: serviceLogger('runs'),
      workerTokens: { evaluator: [workerTokens.evaluator], executor: [workerTokens.executor] },
      adminOrgsAddress: adminOrgs.address,
      policySetsAddress: policySets.address,
      storageAddress: storage.address,
      planMaxBytes: runsConfig.PLAN_MAX_BYTES,
    });
    started.push(runs);
    services.runs = runs;
    for (const service of Object.values(services)) service.useReadinessSettings(readiness);

    // The built-in evaluator claims checks from the runs service like any external worker.
    let evaluatorEngines: string[] | undefined;
    if (options.evaluator) {
      const engines = await detectEngines(
        options.evaluator.environment ?? process.env,
        options.evaluator.command,
      );
      const worker = new EvaluatorWorker({
        token: workerTokens.evaluator,
        runsAddress: runs.address,
        engines,
        evaluatorId: `embedded-${process.pid}`,
        pollIntervalMs: options.evaluator.pollIntervalMs ?? 500,
        leaseSeconds: options.evaluator.leaseSeconds ?? 300,
        timeoutMs: options.evaluator.timeoutMs ?? 600_000,
        concurrency: options.evaluator.concurrency ?? 1,
        logger: serviceLogger('evaluator'),
      });
      // Woken by runs' NOTIFY when a plan queues checks: no wait for the next poll.
      const wakeUps =
        options.evaluator.wakeUps === false
          ? undefined
          : await listenForQueuedChecks(runs.db, serviceLogger('evaluator'), () => worker.wakeUp());
      worker.start();
      stopEvaluator = async () => {
        await wakeUps?.close();
        await worker.stop();
      };
      evaluatorEngines = engines.describe();
    }

    // Every consumer is subscribed now: open the in-process bus and deliver whatever outbox rows
    // (from this start or an earlier, interrupted run) are waiting.
    if (transport instanceof InProcessTransport) transport.open();
    await Promise.all(Object.values(services).map((s) => s.relay.flush()));
    for (const [name, service] of Object.entries(services)) {
      const retention = new EventRetention({
        db: service.db,
        logger: serviceLogger(name),
        settings: retentionSettings(eventsConfig),
      });
      retention.start();
      started.push({ close: () => retention.stop() });
    }

    const clients = createClients(
      {
        adminOrgs: adminOrgs.address,
        policySets: policySets.address,
        runs: runs.address,
        storage: storage.address,
      },
      new InternalAuth({ keys: signingKeys, service: 'gateway' }).credential,
    );
    const edgeStores = createEdgeStores({ redisUrl: options.redisUrl, logger });
    started.push(edgeStores);
    const app = await buildApp({
      clients,
      principalCache: edgeStores.principalCache,
      rateLimits: {
        requestsPerWindow: options.rateLimitPerSecond ?? 0,
        authFailures: options.authFailureLimit ?? 0,
        authFailureWindowMs: (options.authFailureWindowSeconds ?? 60) * 1000,
        redis: edgeStores.redis,
      },
      logger: serviceLogger('gateway'),
      publicUrl: options.publicUrl,
      allowedHosts: options.allowedHosts,
      trustProxy: options.trustProxy,
      bodyLimits: options.bodyLimits,
      vocabulary: options.apiVocabulary,
      validateResponses: options.validateResponses,
    });
    // Health, readiness and metrics on their own listener (loopback by default), never on the API port.
    const opsHost = options.opsHost ?? '127.0.0.1';
    const ops = await startOpsServer({
      port: options.opsPort ?? 0,
      host: opsHost,
      isReady: async () => {
        const reports = await Promise.all(
          Object.entries(services).map(async ([name, s]) => [name, await s.readiness(readiness)] as const),
        );
        const checks: Record<string, DependencyCheck> = {
          gateway: app.server.listening
            ? { status: 'up', required: true }
            : { status: 'down', required: true, detail: 'not listening' },
        };
        for (const [name, report] of reports) {
          for (const [check, state] of Object.entries(report.checks)) checks[`${name}.${check}`] = state;
        }
        return readinessReport(checks);
      },
    });
    started.push({
      close: () =>
        new Promise<void>((resolve) => {
          ops.close(() => resolve());
          ops.closeAllConnections();
        }),
    });
    const port = options.port ?? 8080;
    const host = options.host ?? '127.0.0.1';
    await app.listen({ port, host });
    const baseUrl = urlOf(host, app.server.address(), port);

    return {
      baseUrl,
      opsUrl: urlOf(opsHost, ops.address(), options.opsPort ?? 0),
      siteAdminToken: token,
      workerTokens,
      databaseUrl,
      services,
      app,
      transport,
      logger,
      evaluatorEngines,
      async close() {
        // The evaluator first: it stops claiming before the services it calls go away.
        await stopEvaluator?.();
        await app.close();
        clients.close();
        for (const s of started.reverse()) await s.close();
        await transport.close();
        await postgres?.stop();
      },
    };
  } catch (err) {
    await stopEvaluator?.().catch(() => {});
    for (const s of started.reverse()) await s.close().catch(() => {});
    await postgres?.stop().catch(() => {});
    throw err;
  }
}
