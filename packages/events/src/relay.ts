import type { Db } from '@policyhub/db';
import { metrics, type Logger } from '@policyhub/telemetry';
import pg from 'pg';
import type { BusMessage, EventTransport } from './transport.js';

export interface RelayOptions {
  db: Db;
  transport: EventTransport;
  logger: Logger;
  /** Backstop poll when no NOTIFY arrives (ms). */
  pollMs?: number;
  batchSize?: number;
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
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(private readonly options: RelayOptions) {}

  async start(): Promise<void> {
    await this.listen();
    this.timer = setInterval(() => void this.flush(), this.options.pollMs ?? 1_000);
    this.timer.unref();
    void this.flush();
  }

  private async listen(): Promise<void> {
    const { db, logger } = this.options;
    const client = new pg.Client({ connectionString: db.url });
    client.on('error', (err) => {
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
   * Publishes everything pending now. Concurrent calls coalesce; the promise resolves once the
   * rows that were pending when it was called are published (or publishing failed and will retry).
   */
  flush(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          while ((await this.publishBatch()) > 0) {}
        } catch (err) {
          this.options.logger.warn({ err: (err as Error).message }, 'outbox publish failed; will retry');
          break;
        }
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async publishBatch(): Promise<number> {
    const { db, transport } = this.options;
    return db.transaction(async (tx) => {
      const { rows } = await tx.query<OutboxRow>(
        `SELECT id, event_id, topic, key, payload, headers FROM outbox
          WHERE sent_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [this.options.batchSize ?? 100],
      );
      if (rows.length === 0) return 0;
      const messages: BusMessage[] = rows.map((r) => ({
        topic: r.topic,
        key: r.key,
        eventId: r.event_id,
        payload: r.payload,
        headers: { ...r.headers, 'event-id': r.event_id },
      }));
      await transport.publish(messages);
      await tx.query('UPDATE outbox SET sent_at = now() WHERE id = ANY($1::bigint[])', [rows.map((r) => r.id)]);
      return rows.length;
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

  async pendingCount(): Promise<number> {
    const { rows } = await this.options.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM outbox WHERE sent_at IS NULL',
    );
    const n = rows[0]?.n ?? 0;
    metrics.outboxLag.set({ service: this.options.db.schema }, n);
    return n;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => {});
    await this.listener?.end().catch(() => {});
  }
}
