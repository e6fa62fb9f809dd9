import { readFileSync } from 'node:fs';
import { ConfigError, env, z } from '@policyhub/config';
import { DEFAULT_RETENTION, type KafkaTransportOptions, type RetentionSettings } from '@policyhub/events';
import { DEFAULT_READINESS, type ReadinessSettings } from './readiness.js';

/** Kafka client settings (README "Configuration"); read by every service and by `npm start`. */
export const kafkaConfigShape = {
  KAFKA_BROKERS: env.brokers(),
  /** Idempotent producer; only brokers without it (librdkafka's mock cluster in tests) need false. */
  KAFKA_IDEMPOTENT: env.bool(true),
  /** TLS to the brokers (system CAs unless KAFKA_SSL_CA_FILE is set). */
  KAFKA_SSL: env.bool(false),
  /** PEM file of the CA that signed the brokers' certificates (needs KAFKA_SSL=true). */
  KAFKA_SSL_CA_FILE: z.string().trim().optional(),
  KAFKA_SASL_MECHANISM: z
    .enum(['plain', 'scram-sha-256', 'scram-sha-512'], {
      message: 'must be plain, scram-sha-256 or scram-sha-512',
    })
    .optional(),
  KAFKA_SASL_USERNAME: z.string().optional(),
  KAFKA_SASL_PASSWORD: z.string().optional(),
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

/** Retention of the event tables (docs/adr/0022-event-retention-and-replay.md); 0 keeps rows. */
export const retentionConfigShape = {
  RETENTION_OUTBOX_SENT_DAYS: days(DEFAULT_RETENTION.outboxSentMs / DAY_MS),
  RETENTION_PROCESSED_EVENTS_DAYS: days(DEFAULT_RETENTION.processedEventsMs / DAY_MS),
  RETENTION_DEAD_LETTERS_DAYS: days(DEFAULT_RETENTION.deadLettersMs / DAY_MS),
  RETENTION_INTERVAL_SECONDS: env.int(DEFAULT_RETENTION.intervalMs / 1000, 1),
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
  READYZ_OUTBOX_MAX_AGE_SECONDS: env.int(DEFAULT_READINESS.maxOutboxAgeSeconds),
  READYZ_EVENTS: z
    .enum(['required', 'reported'], { message: 'must be required or reported' })
    .default(DEFAULT_READINESS.events),
};
export type ReadinessConfig = z.infer<z.ZodObject<typeof readinessConfigShape>>;

export const readinessSettings = (config: ReadinessConfig): ReadinessSettings => ({
  maxOutboxAgeSeconds: config.READYZ_OUTBOX_MAX_AGE_SECONDS,
  events: config.READYZ_EVENTS,
});
