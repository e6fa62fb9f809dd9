import { context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';
import type { Db } from '@policyhub/db';
import { metrics, type Logger } from '@policyhub/telemetry';
import pg from 'pg';
import { TransportNotReadyError } from './in-process-transport.js';
import type { BusMessage, EventTransport } from './transport.js';

export interface RelayOptions {
  db: Db;
  transport: EventTransport;
  logger: Logger;
  /** Backstop poll when no NOTIFY arrives (ms). */
  pollMs?: number;
  batchSize?: number;
  /** How often the outbox lag gauges are refreshed (ms). */
  lagIntervalMs?: number;
}

/**
 * Test hook, for the resilience tests only (e2e/test/resilience-relay-kill.test.ts): the relay
 * waits this many milliseconds between publishing a batch and marking it sent, so a test can kill
 * the process inside that window. Unset (0) everywhere else.
 */
const PAUSE_BEFORE_MARK_SENT_MS = Number(process.env.POLICYHUB_TEST_RELAY_PAUSE_BEFORE_MARK_SENT_MS) || 0;

/** What readiness needs to know about the outbox. */
export interface OutboxHealth {
  /** Rows not yet published. */
  pending: number;
  /** Age of the oldest of them, 0 when none. */
  oldestPendingSeconds: number;
  /** Why the last publish failed, until one succeeds again. */
  lastPublishError: string | undefined;
}

interface OutboxRow {
  id: number;
  event_id: string;
  topic: string;
  key: string;
  payload: Buffer;
  headers: Record<string, string>;
}

/**
 * Publishes outbox rows to the transport and marks them sent. Woken by LISTEN/NOTIFY, with a slow
 * poll as a backstop. Rows are claimed with FOR UPDATE SKIP LOCKED, so several replicas can relay
 * the same schema; a crash between publish and mark-sent re-sends the row (consumers dedupe).
 */
export class OutboxRelay {
  private listener: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lagTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  /** Batch queries issued so far; a flush waits for one issued after it was called. */
  private batchQueries = 0;
  private waiters: Array<{ after: number; resolve: () => void }> = [];
  private stopped = false;
  private lastPublishError: string | undefined;

  constructor(private readonly options: RelayOptions) {}

  async start(): Promise<void> {
    await this.listen();
    this.timer = setInterval(() => void this.flush(), this.options.pollMs ?? 1_000);
    this.timer.unref();
    this.lagTimer = setInterval(() => void this.measureLag(), this.options.lagIntervalMs ?? 15_000);
    this.lagTimer.unref();
    void this.flush();
    void this.measureLag();
  }

  private async measureLag(): Promise<void> {
    try {
      await this.pendingCount();
    } catch (err) {
      this.options.logger.debug({ err: (err as Error).message }, 'outbox lag not measured');
    }
  }

  private async listen(): Promise<void> {
    const { db, logger } = this.options;
    const client = new pg.Client({ connectionString: db.url });
    client.on('error', (err) => {
      if (this.stopped) return; // a deliberate stop ends the connection: nothing to report
      logger.warn({ err: err.message }, 'outbox listener lost its connection; polling until it is back');
      this.listener = undefined;
      setTimeout(() => void this.reconnect(), 1_000).unref();
    });
    client.on('notification', () => void this.flush());
    try {
      await client.connect();
      await client.query(`LISTEN ${db.schema}_outbox`);
      this.listener = client;
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'outbox listener could not connect; polling');
      await client.end().catch(() => {});
      setTimeout(() => void this.reconnect(), 1_000).unref();
    }
  }

  private async reconnect(): Promise<void> {
    if (this.stopped || this.listener) return;
    await this.listen();
  }

  /**
   * Publishes everything pending now. Concurrent calls coalesce; the promise resolves as soon as
   * the rows that were pending when it was called are published (or publishing failed and will
   * retry): once a batch query issued after the call has come back short, not after whatever
   * further passes later wake-ups (its own NOTIFY, say) ask for.
   */
  flush(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.waiters.push({ after: this.batchQueries, resolve }));
    if (this.running) {
      this.again = true;
      return done;
    }
    // The relay's own queries belong to no request: whoever woke it must not adopt them in its trace.
    this.running = context
      .with(ROOT_CONTEXT, () => this.publishPending())
      .finally(() => {
        this.running = undefined;
        this.release(Number.POSITIVE_INFINITY);
      });
    return done;
  }

  private async publishPending(): Promise<void> {
    const batchSize = this.options.batchSize ?? 100;
    do {
      this.again = false;
      try {
        let batch: { query: number; rows: number };
        // A short batch took every row its query saw: rows committed later NOTIFY (again).
        do batch = await this.publishBatch(batchSize);
        while (batch.rows === batchSize && !this.stopped);
        this.lastPublishError = undefined;
        this.release(batch.query);
      } catch (err) {
        this.lastPublishError = (err as Error).message;
        const level = err instanceof TransportNotReadyError ? 'debug' : 'warn';
        this.options.logger[level]({ err: (err as Error).message }, 'outbox publish failed; will retry');
        break;
      }
    } while (this.again && !this.stopped);
  }

  /** Resolves the flushes called before batch query number `query` was issued. */
  private release(query: number): void {
    this.waiters = this.waiters.filter((w) => {
      if (w.after >= query) return true;
      w.resolve();
      return false;
    });
  }

  /** One batch: its query's number (see flush) and how many rows it published. */
  private async publishBatch(batchSize: number): Promise<{ query: number; rows: number }> {
    const { db, transport } = this.options;
    return db.transaction(async (tx) => {
      const query = ++this.batchQueries;
      const { rows } = await tx.query<OutboxRow>(
        `SELECT id, event_id, topic, key, payload, headers FROM outbox
          WHERE sent_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [batchSize],
      );
      if (rows.length === 0) return { query, rows: 0 };
      const messages: BusMessage[] = rows.map((r) => ({
        topic: r.topic,
        key: r.key,
        eventId: r.event_id,
        payload: r.payload,
        headers: { ...r.headers, 'event-id': r.event_id },
      }));
      await publishInOriginalContext(transport, messages);
      if (PAUSE_BEFORE_MARK_SENT_MS > 0) await new Promise((r) => setTimeout(r, PAUSE_BEFORE_MARK_SENT_MS));
      // Marking sent need not wait for its own WAL flush: if a crash loses it, the rows are sent
      // again and consumers skip what they already applied (ADR 0037). One round trip.
      const ids = rows.map((r) => Number(r.id)).join(',');
      await tx.query(
        `SET LOCAL synchronous_commit = off; UPDATE outbox SET sent_at = now() WHERE id IN (${ids})`,
      );
      return { query, rows: rows.length };
    });
  }

  /**
   * Publishes what is pending and waits at most `ms` for it: called right after a commit that
   * wrote an event, so in embedded mode its consumers have usually applied it before the
   * response leaves. If it takes longer the relay simply carries on in the background.
   */
  async flushWithin(ms = 2_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.flush(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
    ]);
    clearTimeout(timer);
  }

  /** Counts unsent rows and refreshes the outbox lag gauges (pending rows, age of the oldest). */
  async pendingCount(): Promise<number> {
    return (await this.health()).pending;
  }

  /** Unsent rows, the age of the oldest, the last publish error; refreshes the lag gauges too. */
  async health(): Promise<OutboxHealth> {
    const { rows } = await this.options.db.query<{ n: number; age: number | null }>(
      `SELECT (SELECT count(*)::int FROM outbox WHERE sent_at IS NULL) AS n,
              (SELECT EXTRACT(EPOCH FROM now() - created_at)::float8 FROM outbox
                WHERE sent_at IS NULL ORDER BY id LIMIT 1) AS age`,
    );
    const pending = rows[0]?.n ?? 0;
    const oldestPendingSeconds = Math.max(0, rows[0]?.age ?? 0);
    const labels = { service: this.options.db.schema };
    metrics.outboxLag.set(labels, pending);
    metrics.outboxOldestAge.set(labels, oldestPendingSeconds);
    return {
      pending,
      oldestPendingSeconds,
      lastPublishError: pending > 0 ? this.lastPublishError : undefined,
    };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.lagTimer) clearInterval(this.lagTimer);
    await this.running?.catch(() => {});
    this.release(Number.POSITIVE_INFINITY);
    await this.listener?.end().catch(() => {});
  }
}

/**
 * Publishes each run of consecutive messages written under the same trace context inside that
 * context (stored with the outbox row), so a producer span joins the trace of the request that
 * wrote the event and the transport propagates that trace to consumers. Order is kept.
 */
async function publishInOriginalContext(transport: EventTransport, messages: BusMessage[]): Promise<void> {
  let start = 0;
  while (start < messages.length) {
    const traceparent = messages[start]!.headers.traceparent;
    let end = start + 1;
    while (end < messages.length && messages[end]!.headers.traceparent === traceparent) end++;
    const run = messages.slice(start, end);
    await context.with(propagation.extract(ROOT_CONTEXT, run[0]!.headers), () => transport.publish(run));
    start = end;
  }
}
