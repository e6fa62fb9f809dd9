import {
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { decodeMessage, fromTimestamp, type TimestampOutput } from '@policyhub/contracts';
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

/** A consumer's handling of one topic. */
export interface TopicHandler<T = any> {
  topic: Topic;
  handle: EventHandler<T>;
  /**
   * Whether the event is this consumer's at all (default: every event of the topic). An event it
   * does not accept is acknowledged without a transaction or a processed_events row: there is no
   * effect to apply once, so there is nothing to record. Only for events the consumer would
   * ignore whatever its state (another service's upload, say), never for "already applied".
   */
  accepts?: (payload: T) => boolean;
}

export interface ConsumerOptions {
  /** Consumer (group) name, e.g. `policy-sets.upload-completed`. */
  name: string;
  db: Db;
  transport: EventTransport;
  logger: Logger;
  handlers: TopicHandler[];
  /** Attempts before a message is dead-lettered (default 5). */
  maxAttempts?: number;
  retryDelayMs?: number;
  /** How often dead letters an operator asked to replay are looked for (ms, default 2000). */
  replayPollMs?: number;
}

/**
 * Subscribes a consumer group and applies each event exactly once: the event id is recorded in
 * processed_events in the same transaction as the handler's effect. A message that keeps failing
 * is written to dead_letters with its error and acknowledged; it is never dropped silently.
 *
 * Dead letters an operator asked to replay (`npm run dead-letters -- replay`, which sets
 * `replay_requested_at`) are picked up by this same consumer and go through the same path:
 * retries, exactly-once effect, and the dead letter is removed in the transaction that applies
 * it, or updated with the new error if it fails again (docs/adr/0022-event-retention-and-replay.md).
 */
export async function startConsumer(options: ConsumerOptions): Promise<Subscription> {
  const { db, logger, name } = options;
  const byTopic = new Map<string, TopicHandler>(options.handlers.map((h) => [h.topic.name, h]));
  const maxAttempts = options.maxAttempts ?? 5;

  const handleMessage = async (message: BusMessage, replay = false): Promise<void> => {
    const entry = byTopic.get(message.topic);
    if (!entry) return;
    const parent = propagation.extract(context.active(), message.headers);
    await context.with(parent, () =>
      inConsumerSpan(name, message, async (span) => {
        let lastError: unknown;
        let payload: Record<string, unknown> | undefined;
        for (let attempt = 1; attempt <= maxAttempts; attempt++) {
          try {
            payload ??= decodeMessage<Record<string, unknown>>(entry.topic.type, message.payload);
            // A replayed dead letter goes through the transaction, which also removes it.
            if (!replay && entry.accepts && !entry.accepts(payload)) {
              metrics.consumed.inc({ consumer: name, topic: message.topic, outcome: 'ignored' });
              return;
            }
            const outcome = await applyOnce(db, name, message, payload, entry.handle, replay);
            metrics.consumed.inc({ consumer: name, topic: message.topic, outcome });
            if (replay)
              logger.info({ consumer: name, eventId: message.eventId, outcome }, 'dead letter replayed');
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

  const subscription = await options.transport.subscribe(name, [...byTopic.keys()], (m) => handleMessage(m));
  const replays = new ReplayPoller(db, name, logger, options.replayPollMs ?? 2_000, (m) =>
    handleMessage(m, true),
  );
  return {
    async close() {
      await replays.stop();
      await subscription.close();
    },
  };
}

interface DeadLetterRow {
  id: number;
  topic: string;
  event_id: string;
  key: string;
  payload: Buffer;
  headers: Record<string, string>;
}

/**
 * Claims the dead letters of one consumer that an operator asked to replay (a few at a time,
 * SKIP LOCKED, so replicas share the work) and hands each to the consumer's own message path.
 */
class ReplayPoller {
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly consumer: string,
    private readonly logger: Logger,
    pollMs: number,
    private readonly replay: (message: BusMessage) => Promise<void>,
  ) {
    this.timer = setInterval(() => {
      this.running ??= this.poll().finally(() => {
        this.running = undefined;
      });
    }, pollMs);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    // The poller's queries belong to no request or event: keep them out of whatever trace is active.
    await context.with(ROOT_CONTEXT, async () => {
      let rows: DeadLetterRow[];
      try {
        ({ rows } = await this.db.query<DeadLetterRow>(
          `UPDATE dead_letters SET replay_requested_at = NULL
            WHERE id IN (SELECT id FROM dead_letters
                          WHERE consumer = $1 AND replay_requested_at IS NOT NULL
                          ORDER BY id LIMIT 10 FOR UPDATE SKIP LOCKED)
            RETURNING id, topic, event_id, key, payload, headers`,
          [this.consumer],
        ));
      } catch (err) {
        this.logger.debug({ err: (err as Error).message }, 'dead-letter replays not looked for');
        return;
      }
      for (const row of rows.sort((a, b) => a.id - b.id)) {
        if (this.stopped) return;
        const message: BusMessage = {
          topic: row.topic,
          key: row.key,
          eventId: row.event_id,
          payload: row.payload,
          headers: { ...row.headers, 'event-id': row.event_id },
        };
        try {
          await this.replay(message);
        } catch (err) {
          // Postgres went away mid-replay: ask again, so the replay happens once it is back.
          await this.db
            .query('UPDATE dead_letters SET replay_requested_at = now() WHERE id = $1', [row.id])
            .catch(() => {
              this.logger.warn(
                { consumer: this.consumer, deadLetter: row.id, err: (err as Error).message },
                'dead-letter replay interrupted; request it again',
              );
            });
        }
      }
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running?.catch(() => {});
  }
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
  payload: Record<string, unknown>,
  handle: EventHandler,
  replay: boolean,
): Promise<'processed' | 'duplicate'> {
  return db.transaction(async (tx) => {
    // A replayed dead letter is resolved exactly when its effect commits (or is found applied).
    if (replay) {
      await tx.query('DELETE FROM dead_letters WHERE consumer = $1 AND event_id = $2', [
        consumer,
        message.eventId,
      ]);
    }
    const inserted = await tx.query(
      'INSERT INTO processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [consumer, message.eventId],
    );
    if (inserted.rowCount === 0) return 'duplicate';
    // Unset in an event written before occurred_at became a Timestamp (ADR 0035). A replay's age
    // says nothing about how far behind the consumer is.
    const occurredAt = fromTimestamp(payload.occurredAt as TimestampOutput | null);
    if (!replay && occurredAt) {
      metrics.consumerLag.set({ consumer, topic: message.topic }, (Date.now() - occurredAt.getTime()) / 1000);
    }
    await handle({ eventId: message.eventId, topic: message.topic, key: message.key, payload }, tx);
    return 'processed';
  });
}

async function deadLetter(db: Db, consumer: string, message: BusMessage, err: unknown, attempts: number) {
  await db.query(
    `INSERT INTO dead_letters (consumer, topic, event_id, key, payload, headers, error, attempts)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (consumer, event_id) DO UPDATE
       SET error = EXCLUDED.error, attempts = dead_letters.attempts + EXCLUDED.attempts,
           failed_at = now(), replay_requested_at = NULL`,
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
