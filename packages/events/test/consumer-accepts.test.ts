import { Db, runMigrations } from '@policyhub/db';
import { createLogger, registry } from '@policyhub/telemetry';
import { createTestDatabase, type TestDatabase } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  enqueueEvent,
  eventMigrations,
  InProcessTransport,
  OutboxRelay,
  startConsumer,
  type Subscription,
  TOPICS,
} from '../src/index.js';

/**
 * A consumer that takes only some events of its topic (`accepts`): the others are acknowledged
 * without a transaction, a processed_events row or a call to the handler, and counted as
 * `ignored`; the ones it takes are applied once, as before. Real Postgres, in-process bus.
 */
const CONSUMER = 'accepts_test.deletions';
let database: TestDatabase;
let db: Db;
let relay: OutboxRelay;
let consumer: Subscription;
const transport = new InProcessTransport();
const logger = createLogger('consumer-accepts-test', 'silent');
const handled: string[] = [];

beforeAll(async () => {
  database = await createTestDatabase('ph_consumer_accepts');
  db = new Db({ url: database.url, schema: 'accepts_test' });
  await runMigrations(db, eventMigrations);
  relay = new OutboxRelay({ db, transport, logger });
  consumer = await startConsumer({
    name: CONSUMER,
    db,
    transport,
    logger,
    handlers: [
      {
        topic: TOPICS.policySetDeleted,
        accepts: (payload: { policySetId: string }) => payload.policySetId.startsWith('mine-'),
        async handle(event) {
          handled.push(event.payload.policySetId);
        },
      },
    ],
  });
});
afterAll(async () => {
  await consumer?.close();
  await relay?.stop();
  await db?.close();
  await database?.drop();
});

async function publish(policySetId: string): Promise<string> {
  const { eventId } = await db.transaction((tx) =>
    enqueueEvent(tx, TOPICS.policySetDeleted, policySetId, { policySetId, organization: 'acme' }),
  );
  await relay.flush();
  return eventId;
}

async function ignoredCount(): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find(
    (m) => m.name === 'policyhub_events_consumed_total',
  );
  const value = (metric?.values ?? []).find(
    (v) => v.labels.consumer === CONSUMER && v.labels.outcome === 'ignored',
  );
  return Number(value?.value ?? 0);
}

describe('a consumer that accepts only some events of its topic', () => {
  it('applies the events it accepts once and acknowledges the others without recording them', async () => {
    const ignoredBefore = await ignoredCount();
    const theirs = await publish('theirs-1');
    const mine = await publish('mine-1');

    expect(handled).toEqual(['mine-1']);
    const { rows } = await db.query<{ event_id: string }>(
      'SELECT event_id FROM processed_events WHERE consumer = $1',
      [CONSUMER],
    );
    expect(rows.map((r) => r.event_id)).toEqual([mine]);
    expect(rows.map((r) => r.event_id)).not.toContain(theirs);
    expect(await ignoredCount()).toBe(ignoredBefore + 1);
    // Both are acknowledged: nothing is left for the relay to send again.
    const pending = await db.query('SELECT 1 FROM outbox WHERE sent_at IS NULL');
    expect(pending.rowCount).toBe(0);
    const dead = await db.query('SELECT 1 FROM dead_letters');
    expect(dead.rowCount).toBe(0);
  });
});
