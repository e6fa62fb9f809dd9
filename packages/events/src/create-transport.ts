import type { Logger } from '@policyhub/telemetry';
import { InProcessTransport } from './in-process-transport.js';
import { KafkaTransport, type KafkaTransportOptions } from './kafka-transport.js';
import type { EventTransport } from './transport.js';

export interface CreateTransportOptions {
  /** Kafka bootstrap servers; none (or only blanks) selects the in-process bus of embedded mode. */
  brokers?: string[] | undefined;
  clientId: string;
  logger: Logger;
  /** Kafka consumer session timeout (KafkaTransportOptions.sessionTimeoutMs). */
  sessionTimeoutMs?: number;
  /** Kafka producer idempotence, TLS and SASL (KafkaTransportOptions). */
  kafka?: Pick<KafkaTransportOptions, 'idempotent' | 'ssl' | 'sasl'>;
  /** In-process only: refuse publishes until `open()` (see InProcessTransport). */
  holdUntilOpen?: boolean;
}

/** The event bus a composition root should use: Kafka when brokers are configured, else in-process. */
export function createTransport(options: CreateTransportOptions): EventTransport {
  const brokers = (options.brokers ?? []).map((b) => b.trim()).filter((b) => b.length > 0);
  if (brokers.length === 0) return new InProcessTransport({ held: options.holdUntilOpen });
  return new KafkaTransport({
    brokers,
    clientId: options.clientId,
    logger: options.logger,
    sessionTimeoutMs: options.sessionTimeoutMs,
    ...options.kafka,
  });
}

/**
 * One line for the start-up log: which bus this process uses. Never includes credentials.
 */
export function describeTransport(
  transport: EventTransport,
  options: Pick<CreateTransportOptions, 'brokers' | 'kafka'>,
): Record<string, unknown> {
  if (transport.kind === 'in-process') return { events: 'in-process' };
  return {
    events: 'kafka',
    brokers: options.brokers,
    idempotentProducer: options.kafka?.idempotent ?? true,
    tls: Boolean(options.kafka?.ssl),
    sasl: options.kafka?.sasl?.mechanism ?? 'none',
  };
}
