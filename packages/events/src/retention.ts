import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import type { Db } from '@policyhub/db';
import { type Logger, metrics } from '@policyhub/telemetry';

/** How long rows of the event tables are kept; 0 keeps them forever. */
export interface RetentionSettings {
  /** Outbox rows already published (default 7 days; unsent rows are never removed). */
  outboxSentMs: number;
  /**
   * Ids of applied events, which make redeliveries no-ops (default 30 days). Keep it longer than
   * anything can still redeliver an event: Kafka's topic retention (7 days by default) while a
   * group's offsets can be reset or expire and it re-reads from the beginning.
   */
  processedEventsMs: number;
  /** Dead letters (default 0: kept until replayed or discarded). */
  deadLettersMs: number;
  /** How often the job runs (default 10 minutes). */
  intervalMs: number;
  /** Rows per DELETE (default 1000): short transactions, row locks only. */
  batchSize: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export const DEFAULT_RETENTION: RetentionSettings = {
  outboxSentMs: 7 * DAY_MS,
  processedEventsMs: 30 * DAY_MS,
  deadLettersMs: 0,
  intervalMs: 10 * 60 * 1000,
  batchSize: 1000,
};

/** Upper bound of batches per table and run, so one run cannot go on for ever behind a flood. */
const MAX_BATCHES_PER_RUN = 500;
/** How often the size and age gauges are refreshed. */
const GAUGE_INTERVAL_MS = 60_000;

export type EventTable = 'outbox' | 'processed_events' | 'dead_letters';

/**
 * Each table's batch: the oldest rows past the cutoff (by an indexed age column), locked with
 * SKIP LOCKED so replicas of a service running the same job, and the relay, never wait on it.
 */
const DELETE_BATCH: Record<EventTable, string> = {
  outbox: `DELETE FROM outbox WHERE id IN (
      SELECT id FROM outbox WHERE sent_at < now() - make_interval(secs => $1)
       ORDER BY sent_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
  processed_events: `DELETE FROM processed_events WHERE (consumer, event_id) IN (
      SELECT consumer, event_id FROM processed_events WHERE processed_at < now() - make_interval(secs => $1)
       ORDER BY processed_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
  dead_letters: `DELETE FROM dead_letters WHERE id IN (
      SELECT id FROM dead_letters WHERE failed_at < now() - make_interval(secs => $1)
        AND replay_requested_at IS NULL
       ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)`,
};

export interface RetentionOptions {
  db: Db;
  logger: Logger;
  settings?: Partial<RetentionSettings>;
}

/**
 * The periodic clean-up of a service's event tables (outbox, processed_events, dead_letters):
 * deletes rows past their retention in small batches, and keeps gauges of each table's size and
 * oldest row. Every service runs one; replicas share the work.
 */
export class EventRetention {
  readonly settings: RetentionSettings;
  private timers: NodeJS.Timeout[] = [];
  private running: Promise<unknown> | undefined;

  constructor(private readonly options: RetentionOptions) {
    this.settings = { ...DEFAULT_RETENTION, ...options.settings };
  }

  start(): void {
    const deleteTimer = setInterval(() => void this.runGuarded(), this.settings.intervalMs);
    const gaugeTimer = setInterval(() => void this.measureGuarded(), GAUGE_INTERVAL_MS);
    for (const t of [deleteTimer, gaugeTimer]) t.unref();
    this.timers = [deleteTimer, gaugeTimer];
    void this.measureGuarded();
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await this.running?.catch(() => {});
  }

  /** One pass over the three tables; resolves with the rows removed from each. */
  async runOnce(): Promise<Record<EventTable, number>> {
    const { db } = this.options;
    const retentionMs: Record<EventTable, number> = {
      outbox: this.settings.outboxSentMs,
      processed_events: this.settings.processedEventsMs,
      dead_letters: this.settings.deadLettersMs,
    };
    const deleted: Record<EventTable, number> = { outbox: 0, processed_events: 0, dead_letters: 0 };
    for (const table of Object.keys(DELETE_BATCH) as EventTable[]) {
      if (retentionMs[table] <= 0) continue;
      for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
        const { rowCount } = await db.query(DELETE_BATCH[table], [
          retentionMs[table] / 1000,
          this.settings.batchSize,
        ]);
        const n = rowCount ?? 0;
        deleted[table] += n;
        if (n > 0) metrics.eventRowsDeleted.inc({ service: db.schema, table }, n);
        if (n < this.settings.batchSize) break;
      }
    }
    await this.measure();
    return deleted;
  }

  /** Refreshes the gauges: size, oldest row retention looks at, dead letters waiting. */
  async measure(): Promise<void> {
    const { db } = this.options;
    const { rows } = await db.query<{
      outbox_bytes: number;
      processed_bytes: number;
      dead_bytes: number;
      outbox_age: number | null;
      processed_age: number | null;
      dead_age: number | null;
      dead_count: number;
    }>(
      `SELECT pg_total_relation_size('outbox') AS outbox_bytes,
              pg_total_relation_size('processed_events') AS processed_bytes,
              pg_total_relation_size('dead_letters') AS dead_bytes,
              EXTRACT(EPOCH FROM now() - (SELECT min(sent_at) FROM outbox WHERE sent_at IS NOT NULL))::float8 AS outbox_age,
              EXTRACT(EPOCH FROM now() - (SELECT min(processed_at) FROM processed_events))::float8 AS processed_age,
              EXTRACT(EPOCH FROM now() - (SELECT min(failed_at) FROM dead_letters))::float8 AS dead_age,
              (SELECT count(*)::int FROM dead_letters) AS dead_count`,
    );
    const r = rows[0]!;
    const service = db.schema;
    for (const [table, bytes, age] of [
      ['outbox', r.outbox_bytes, r.outbox_age],
      ['processed_events', r.processed_bytes, r.processed_age],
      ['dead_letters', r.dead_bytes, r.dead_age],
    ] as const) {
      metrics.eventTableBytes.set({ service, table }, bytes);
      metrics.eventTableOldest.set({ service, table }, Math.max(0, age ?? 0));
    }
    metrics.deadLetters.set({ service }, r.dead_count);
  }

  private runGuarded(): Promise<unknown> {
    this.running ??= context
      .with(ROOT_CONTEXT, () => this.runOnce())
      .then(
        (deleted) => {
          if (Object.values(deleted).some((n) => n > 0))
            this.options.logger.info({ deleted }, 'event retention');
        },
        (err: unknown) =>
          this.options.logger.warn({ err: (err as Error).message }, 'event retention failed; will retry'),
      )
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private measureGuarded(): Promise<void> {
    return context
      .with(ROOT_CONTEXT, () => this.measure())
      .catch((err: unknown) =>
        this.options.logger.debug({ err: (err as Error).message }, 'event tables not measured'),
      );
  }
}
