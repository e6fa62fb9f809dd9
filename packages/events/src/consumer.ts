import { context, propagation, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { decodeMessage } from '@policyhub/contracts';
import { type Db, isConnectionError, type Queryable } from '@policyhub/db';
import { metrics, type Logger } from '@policyhub/telemetry';
import type { Topic } from './topics.js';
import type { BusMessage, EventTransport, Subscription } from './transport.js';

export interface ConsumedEvent<T> {
  eventId: string;
  topic: string;
  key: string;
  payload: T;
}

export type EventHandler<T = any> = (event: ConsumedEvent<T>, tx: Queryable) => Promise<void>;

export interface ConsumerOptions {
  /** Consumer (group) name, e.g. `policy-sets.upload-completed`. */
  name: string;
  db: Db;
  transport: EventTransport;
  logger: Logger;
  handlers: Array<{ topic: Topic; handle: EventHandler }>;
  /** Attempts before a message is dead-lettered (default 5). */
  maxAttempts?: number;
  retryDelayMs?: number;
}

/**
 * Subscribes a consumer group and applies each event exactly once: the event id is recorded in
 * processed_events in the same transaction as the handler's effect. A message that keeps failing
 * is written to dead_letters with its error and acknowledged; it is never dropped silently.
 */
export async function startConsumer(options: ConsumerOptions): Promise<Subscription> {
  const { db, logger, name } = options;
  const byTopic = new Map<string, { topic: Topic; handle: EventHandler }>(
    options.handlers.map((h) => [h.topic.name, h]),
  );
  const maxAttempts = options.maxAttempts ?? 5;

  const handleMessage = async (message: BusMessage): Promise<void> => {
    const entry = byTopic.get(message.topic);
    if (!entry) return;
    const parent = propagation.extract(context.active(), message.headers);
    await context.with(parent, () =>
      inConsumerSpan(name, message, async (span) => {
        let lastError: unknown;
        for (let attempt = 1; attempt <= maxAttempts; attempt++) {
          try {
            const outcome = await applyOnce(db, name, message, entry.topic, entry.handle);
            metrics.consumed.inc({ consumer: name, topic: message.topic, outcome });
            return;
          } catch (err) {
            // Postgres being down is not the message's fault: hand it back to the transport to retry later.
            if (isConnectionError(err)) throw err;
            lastError = err;
            logger.warn(
              { err, consumer: name, topic: message.topic, eventId: message.eventId, attempt },
              'event handler failed',
            );
            if (attempt < maxAttempts) await sleep((options.retryDelayMs ?? 100) * attempt);
          }
        }
        await deadLetter(db, name, message, lastError, maxAttempts);
        metrics.consumed.inc({ consumer: name, topic: message.topic, outcome: 'dead_lettered' });
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'dead-lettered' });
        logger.error(
          { consumer: name, topic: message.topic, eventId: message.eventId },
          'event dead-lettered',
        );
      }),
    );
  };

  return options.transport.subscribe(name, [...byTopic.keys()], handleMessage);
}

const tracer = trace.getTracer('@policyhub/events');

/**
 * The consumer's work on one message as a span in the trace that wrote the event (its context
 * travels in the message headers), so one trace follows a request through the outbox and the bus.
 */
function inConsumerSpan(
  consumer: string,
  message: BusMessage,
  work: (span: Span) => Promise<void>,
): Promise<void> {
  const attributes = {
    'messaging.operation.type': 'process',
    'messaging.destination.name': message.topic,
    'messaging.consumer.group.name': consumer,
    'messaging.message.id': message.eventId,
  };
  return tracer.startActiveSpan(
    `process ${message.topic}`,
    { kind: SpanKind.CONSUMER, attributes },
    async (span) => {
      try {
        await work(span);
      } catch (err) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

async function applyOnce(
  db: Db,
  consumer: string,
  message: BusMessage,
  topic: Topic,
  handle: EventHandler,
): Promise<'processed' | 'duplicate'> {
  return db.transaction(async (tx) => {
    const inserted = await tx.query(
      'INSERT INTO processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [consumer, message.eventId],
    );
    if (inserted.rowCount === 0) return 'duplicate';
    const payload = decodeMessage<Record<string, unknown>>(topic.type, message.payload);
    const occurredAt = typeof payload.occurredAt === 'string' ? Date.parse(payload.occurredAt) : Number.NaN;
    if (!Number.isNaN(occurredAt)) {
      metrics.consumerLag.set({ consumer, topic: message.topic }, (Date.now() - occurredAt) / 1000);
    }
    await handle({ eventId: message.eventId, topic: message.topic, key: message.key, payload }, tx);
    return 'processed';
  });
}

async function deadLetter(db: Db, consumer: string, message: BusMessage, err: unknown, attempts: number) {
  await db.query(
    `INSERT INTO dead_letters (consumer, topic, event_id, key, payload, headers, error, attempts)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (consumer, event_id) DO NOTHING`,
    [
      consumer,
      message.topic,
      message.eventId,
      message.key,
      message.payload,
      message.headers,
      describe(err),
      attempts,
    ],
  );
}

const describe = (err: unknown): string =>
  err instanceof Error ? `${err.name}: ${err.message}` : String(err);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
