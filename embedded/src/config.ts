import { siteAdminTokenEnv } from '@policyhub/admin-orgs';
import { documented as doc, env, z } from '@policyhub/config';
import { engineConfigShape } from '@policyhub/evaluator';
import {
  allowedHostsEnv,
  apiVocabulary,
  bodyLimitsConfigShape,
  publicUrlEnv,
  rateLimitConfigShape,
  trustProxyEnv,
} from '@policyhub/gateway';
import { databaseTimeoutsConfigShape, kafkaConfigShape } from '@policyhub/service-kit';

const LOG_LEVELS = '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`';

/**
 * `npm start`: the whole system in one process with embedded defaults. The services it starts
 * also read their own variables (storage's, runs' PLAN_MAX_BYTES, the event settings):
 * docs/configuration.md, generated from these shapes, lists them.
 */
export const embeddedConfigShape = {
  PORT: doc(
    env.port(8080),
    'gateway HTTP port (`0` picks a free one; the printed base URL shows it); refused in one line (exit 2) when taken',
  ),
  HOST: doc(z.string().default('127.0.0.1'), 'gateway bind address'),
  DATA_DIR: doc(
    z.string().default('.data'),
    'embedded Postgres data (`postgres/`; as root, when user `postgres` cannot enter this directory, in `/var/lib/policyhub/clusters/<key>` instead, named in a log line at start), its superuser password (`postgres-password`, 0600, generated once), filesystem object store (`objects/`), generated site-admin and worker tokens; with the embedded Postgres, one running PolicyHub per directory',
  ),
  DATABASE_URL: doc(
    env.optionalUrl(),
    'use an existing Postgres database instead (each service uses its own schema in it)',
    'unset → embedded Postgres in `DATA_DIR`',
  ),
  KAFKA_BROKERS: kafkaConfigShape.KAFKA_BROKERS,
  REDIS_URL: doc(env.optionalUrl(), 'gateway principal cache and rate limits', 'unset → in memory'),
  ...rateLimitConfigShape(),
  OPS_PORT: doc(
    env.port(9464),
    'port of the ops listener (`/healthz`, `/readyz`, `/metrics`; `0` picks a free one; printed at start)',
  ),
  OPS_HOST: doc(z.string().default('127.0.0.1'), 'interface of the ops listener'),
  SITE_ADMIN_TOKEN: siteAdminTokenEnv('generated once into `DATA_DIR/site-admin-token`'),
  PUBLIC_URL: publicUrlEnv(', and the base URL printed at start'),
  ALLOWED_HOSTS: allowedHostsEnv(),
  TRUST_PROXY: trustProxyEnv(),
  ...bodyLimitsConfigShape,
  ...databaseTimeoutsConfigShape,
  LOG_LEVEL: doc(env.logLevel(), LOG_LEVELS),
  RUNS_GRPC_ADDR: doc(
    env.address('127.0.0.1:50053'),
    "`host:port` of the runs service's internal gRPC API, for executors and `npm run evaluator` (they authenticate with the token in `DATA_DIR/evaluator-token` or `DATA_DIR/executor-token`, see [docs/security.md](security.md)); fixed so that evaluators find it again after a restart (`…:0` picks a free port); refused in one line (exit 2) when taken",
  ),
  EVALUATOR_ENABLED: doc(
    env.bool(true),
    'the built-in evaluator (an in-process worker; [docs/policy-evaluation.md](policy-evaluation.md)); `false` leaves checks to external workers',
  ),
  EVALUATOR_WAKE_UPS: doc(
    env.bool(true),
    "the built-in evaluator claims a queued check at once, woken by the runs service's Postgres notification (LISTEN/NOTIFY) when a plan queues it; `false`: it only polls (every 500 ms while idle), e.g. behind a connection pooler that does not pass notifications",
  ),
  ...engineConfigShape(),
  API_VOCABULARY: apiVocabulary(),
};
