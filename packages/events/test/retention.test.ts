import { randomUUID } from 'node:crypto';
import { Db, runMigrations } from '@policyhub/db';
import { createLogger, registry } from '@policyhub/telemetry';
import { createTestDatabase, type TestDatabase } from '@policyhub/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventMigrations, EventRetention } from '../src/index.js';

/**
 * Retention of the event tables on a real Postgres: rows past their table's retention go, in
 * batches; everything younger, every unsent outbox row and every dead letter (by default) stays.
 */
let database: TestDatabase;
let db: Db;
const logger = createLogger('retention-test', 'silent');
const DAY = 24 * 60 * 60 * 1000;

beforeAll(async () => {
  database = await createTestDatabase('ph_retention');
  db = new Db({ url: database.url, schema: 'retention_test' });
  await runMigrations(db, eventMigrations);
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
});
beforeEach(async () => {
  await db.query('TRUNCATE outbox, processed_events, dead_letters');
});

/** `count` rows in each table, `daysAgo` old (outbox: sent that long ago unless `unsent`). */
async function seed(count: number, daysAgo: number, options: { unsent?: boolean } = {}) {
  for (let i = 0; i < count; i++) {
    const at = `now() - make_interval(days => ${daysAgo})`;
    await db.query(
      `INSERT INTO outbox (event_id, topic, key, payload, created_at, sent_at)
       VALUES ($1, 't', 'k', '\\x00', ${at}, ${options.unsent ? 'NULL' : at})`,
      [randomUUID()],
    );
    await db.query(
      `INSERT INTO processed_events (consumer, event_id, processed_at) VALUES ('c', $1, ${at})`,
      [randomUUID()],
    );
    await db.query(
      `INSERT INTO dead_letters (consumer, topic, event_id, key, payload, error, attempts, failed_at)
       VALUES ('c', 't', $1, 'k', '\\x00', 'boom', 5, ${at})`,
      [randomUUID()],
    );
  }
}

const counts = async () =>
  (
    await db.query<{ outbox: number; processed: number; dead: number; unsent: number }>(
      `SELECT (SELECT count(*)::int FROM outbox) AS outbox,
              (SELECT count(*)::int FROM outbox WHERE sent_at IS NULL) AS unsent,
              (SELECT count(*)::int FROM processed_events) AS processed,
              (SELECT count(*)::int FROM dead_letters) AS dead`,
    )
  ).rows[0];

const sample = async (name: string, labels: string) => {
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
};

describe('event-table retention', () => {
  it('with the defaults, removes sent outbox rows after 7 days and processed events after 30, in batches', async () => {
    await seed(3, 40); // past both
    await seed(2, 10); // outbox past 7 days, processed events still kept
    await seed(2, 1); // young
    await seed(2, 90, { unsent: true }); // never published: kept whatever its age (the rest goes)
    const retention = new EventRetention({ db, logger, settings: { batchSize: 2 } });

    expect(await retention.runOnce()).toEqual({ outbox: 5, processed_events: 5, dead_letters: 0 });
    expect(await counts()).toEqual({ outbox: 4, unsent: 2, processed: 4, dead: 9 });
    // Nothing more to do on the next run.
    expect(await retention.runOnce()).toEqual({ outbox: 0, processed_events: 0, dead_letters: 0 });

    const labels = (table: string) => `service="retention_test",table="${table}"`;
    expect(await sample('policyhub_event_rows_deleted_total', labels('outbox'))).toBe(5);
    expect(await sample('policyhub_event_rows_deleted_total', labels('processed_events'))).toBe(5);
    expect(await sample('policyhub_dead_letters', 'service="retention_test"')).toBe(9);
    expect(await sample('policyhub_event_table_bytes', labels('outbox'))).toBeGreaterThan(0);
    // The oldest remaining processed event is 10 days old; the oldest sent outbox row a day.
    expect(await sample('policyhub_event_table_oldest_seconds', labels('processed_events'))).toBeGreaterThan(
      9 * 86_400,
    );
    expect(await sample('policyhub_event_table_oldest_seconds', labels('outbox'))).toBeLessThan(2 * 86_400);
  });

  it('follows each table its own setting: 0 keeps rows, dead letters waiting for a replay stay', async () => {
    await seed(2, 20);
    await db.query(
      'UPDATE dead_letters SET replay_requested_at = now() WHERE id = (SELECT min(id) FROM dead_letters)',
    );
    const retention = new EventRetention({
      db,
      logger,
      settings: { outboxSentMs: 0, processedEventsMs: 15 * DAY, deadLettersMs: 15 * DAY },
    });

    expect(await retention.runOnce()).toEqual({ outbox: 0, processed_events: 2, dead_letters: 1 });
    expect(await counts()).toEqual({ outbox: 2, unsent: 0, processed: 0, dead: 1 });
  });

  it('does not wait for rows another transaction holds (the relay, another replica)', async () => {
    await seed(3, 40);
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM outbox ORDER BY id LIMIT 1 FOR UPDATE');
      const retention = new EventRetention({ db, logger });
      expect((await retention.runOnce()).outbox).toBe(2);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect((await counts())!.outbox).toBe(1);
  });
});
