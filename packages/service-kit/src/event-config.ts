import { readFileSync } from 'node:fs';
import { ConfigError, documented as doc, env, z } from '@policyhub/config';
import { DEFAULT_RETENTION, type KafkaTransportOptions, type RetentionSettings } from '@policyhub/events';
import { DEFAULT_READINESS, type ReadinessSettings } from './readiness.js';

/** Kafka client settings (docs/configuration.md); read by every service and by `npm start`. */
export const kafkaConfigShape = {
  KAFKA_BROKERS: doc(
    env.brokers(),
    'comma-separated Kafka brokers. A service in its own process exchanges events only through Kafka: without brokers it refuses to start (exit 2, one line); `npm start` without brokers uses in-process events (every consumer runs in that process, so nothing is lost)',
    'required (except with `MIGRATE_ONLY`); `npm start`: unset → in-process events',
  ),
  KAFKA_IDEMPOTENT: doc(
    env.bool(true),
    'idempotent producer (the broker drops a batch a retry sent twice); `false` only for brokers without it',
  ),
  KAFKA_SSL: doc(
    env.bool(false),
    'TLS to the brokers, verified against the system CAs or `KAFKA_SSL_CA_FILE`',
  ),
  KAFKA_SSL_CA_FILE: doc(
    z.string().trim().optional(),
    "PEM file of a private CA that signed the brokers' certificates (needs `KAFKA_SSL=true`; read at start)",
  ),
  KAFKA_SASL_MECHANISM: doc(
    z
      .enum(['plain', 'scram-sha-256', 'scram-sha-512'], {
        message: 'must be plain, scram-sha-256 or scram-sha-512',
      })
      .optional(),
    '`plain`, `scram-sha-256` or `scram-sha-512` (managed Kafka); needs `KAFKA_SASL_USERNAME` and `KAFKA_SASL_PASSWORD`',
    'unset → no SASL',
  ),
  KAFKA_SASL_USERNAME: doc(z.string().optional(), 'SASL user name'),
  KAFKA_SASL_PASSWORD: doc(z.string().optional(), 'SASL password (keep it in a Secret; never logged)'),
};
export type KafkaConfig = z.infer<z.ZodObject<typeof kafkaConfigShape>>;

/**
 * The transport's Kafka settings from validated variables, with the checks no single variable
 * can make (SASL needs all three; a CA file needs TLS and must be readable). Throws ConfigError
 * with one line per problem.
 */
export function kafkaClientSettings(
  config: KafkaConfig,
): Pick<KafkaTransportOptions, 'idempotent' | 'ssl' | 'sasl'> {
  const problems: string[] = [];
  const mechanism = config.KAFKA_SASL_MECHANISM;
  const { KAFKA_SASL_USERNAME: username, KAFKA_SASL_PASSWORD: password } = config;
  if (mechanism && (!username || !password)) {
    if (!username)
      problems.push(`KAFKA_SASL_USERNAME: is required with KAFKA_SASL_MECHANISM=${mechanism} (unset)`);
    if (!password)
      problems.push(`KAFKA_SASL_PASSWORD: is required with KAFKA_SASL_MECHANISM=${mechanism} (unset)`);
  }
  if (!mechanism && (username || password)) {
    problems.push('KAFKA_SASL_MECHANISM: is required with KAFKA_SASL_USERNAME/PASSWORD (unset)');
  }
  let ca: string | undefined;
  if (config.KAFKA_SSL_CA_FILE) {
    if (!config.KAFKA_SSL) problems.push('KAFKA_SSL_CA_FILE: needs KAFKA_SSL=true');
    try {
      ca = readFileSync(config.KAFKA_SSL_CA_FILE, 'utf8');
      if (!ca.includes('-----BEGIN CERTIFICATE-----')) {
        problems.push(`KAFKA_SSL_CA_FILE: is not a PEM certificate (got "${config.KAFKA_SSL_CA_FILE}")`);
      }
    } catch (err) {
      problems.push(
        `KAFKA_SSL_CA_FILE: cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message} (got "${config.KAFKA_SSL_CA_FILE}")`,
      );
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    idempotent: config.KAFKA_IDEMPOTENT,
    ...(config.KAFKA_SSL ? { ssl: ca ? { ca: [ca] } : true } : {}),
    ...(mechanism && username && password ? { sasl: { mechanism, username, password } } : {}),
  };
}

const days = (fallback: number) =>
  z.coerce.number().min(0, 'must be 0 (keep) or more days').default(fallback);
const DAY_MS = 24 * 60 * 60 * 1000;

/** Retention of the event tables (docs/adr/0022-events-in-every-mode-retention-and-replay.md); 0 keeps rows. */
export const retentionConfigShape = {
  RETENTION_OUTBOX_SENT_DAYS: doc(
    days(DEFAULT_RETENTION.outboxSentMs / DAY_MS),
    'published outbox rows are deleted after this many days (`0` keeps them); unpublished ones never ([ADR 0022](adr/0022-events-in-every-mode-retention-and-replay.md))',
  ),
  RETENTION_PROCESSED_EVENTS_DAYS: doc(
    days(DEFAULT_RETENTION.processedEventsMs / DAY_MS),
    "ids of applied events (what makes a redelivery a no-op) are deleted after this many days (`0` keeps them); keep it above your Kafka topics' retention",
  ),
  RETENTION_DEAD_LETTERS_DAYS: doc(
    days(DEFAULT_RETENTION.deadLettersMs / DAY_MS),
    'dead letters are deleted after this many days; `0` keeps them until replayed or discarded (`npm run dead-letters`, [deploy/README.md](../deploy/README.md#dead-letters))',
  ),
  RETENTION_INTERVAL_SECONDS: doc(
    env.int(DEFAULT_RETENTION.intervalMs / 1000, 1),
    'how often the retention job runs (batches of 1000 rows)',
  ),
};
export type RetentionConfig = z.infer<z.ZodObject<typeof retentionConfigShape>>;

export const retentionSettings = (config: RetentionConfig): Partial<RetentionSettings> => ({
  outboxSentMs: config.RETENTION_OUTBOX_SENT_DAYS * DAY_MS,
  processedEventsMs: config.RETENTION_PROCESSED_EVENTS_DAYS * DAY_MS,
  deadLettersMs: config.RETENTION_DEAD_LETTERS_DAYS * DAY_MS,
  intervalMs: config.RETENTION_INTERVAL_SECONDS * 1000,
});

/** How events weigh in `/readyz` (readiness.ts). */
export const readinessConfigShape = {
  READYZ_OUTBOX_MAX_AGE_SECONDS: doc(
    env.int(DEFAULT_READINESS.maxOutboxAgeSeconds),
    'a service that writes events is not ready while one has waited longer than this to be published (`0`: reported only)',
  ),
  READYZ_EVENTS: doc(
    z
      .enum(['required', 'reported'], { message: 'must be required or reported' })
      .default(DEFAULT_READINESS.events),
    '`reported`: the bus and outbox appear in `/readyz` without making a producing service not ready',
  ),
};
export type ReadinessConfig = z.infer<z.ZodObject<typeof readinessConfigShape>>;

export const readinessSettings = (config: ReadinessConfig): ReadinessSettings => ({
  maxOutboxAgeSeconds: config.READYZ_OUTBOX_MAX_AGE_SECONDS,
  events: config.READYZ_EVENTS,
});
