import { Db, runMigrations } from '@policyhub/db';
import { createLogger } from '@policyhub/telemetry';
import { createTestDatabase, type TestDatabase } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BusMessage,
  enqueueEvent,
  eventMigrations,
  type EventTransport,
  OutboxRelay,
  TOPICS,
} from '../src/index.js';

let database: TestDatabase;
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase('ph_relay_flush');
  db = new Db({ url: database.url, schema: 'relay_flush' });
  await runMigrations(db, eventMigrations);
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
});

/** Records what it publishes; `hold` makes the next publish wait until released. */
class RecordingTransport implements EventTransport {
  readonly kind = 'in-process' as const;
  readonly published: string[] = [];
  private gate: { entered: () => void; release: Promise<void> } | undefined;

  hold(): { entered: Promise<void>; release: () => void } {
    let entered!: () => void;
    let release!: () => void;
    const enteredPromise = new Promise<void>((resolve) => {
      entered = resolve;
    });
    this.gate = { entered, release: new Promise<void>((resolve) => (release = resolve)) };
    return { entered: enteredPromise, release };
  }

  async probe(): Promise<void> {}

  async publish(messages: BusMessage[]): Promise<void> {
    const gate = this.gate;
    this.gate = undefined;
    if (gate) {
      gate.entered();
      await gate.release;
    }
    this.published.push(...messages.map((m) => m.eventId));
  }

  async subscribe(): Promise<never> {
    throw new Error('not used');
  }

  async close(): Promise<void> {}
}

const enqueue = (organization: string) =>
  db.transaction((tx) => enqueueEvent(tx, TOPICS.organizationDeleted, organization, { organization }));

describe('outbox relay flush', () => {
  it('publishes what was committed before it in one batch, without a second query for more', async () => {
    const transport = new RecordingTransport();
    const relay = new OutboxRelay({ db, transport, logger: createLogger('relay-test', 'silent') });
    const { eventId } = await enqueue('acme');
    const queries = db.queryCount;
    await relay.flush();
    expect(transport.published).toEqual([eventId]);
    // The batch query and marking the row sent; a short batch needs no further look.
    expect(db.queryCount - queries).toBe(2);
    const { rows } = await db.query('SELECT sent_at FROM outbox WHERE event_id = $1', [eventId]);
    expect(rows[0]?.sent_at).not.toBeNull();
    await relay.stop();
  });

  it('a flush called while a batch is being published resolves once its own event is out', async () => {
    const transport = new RecordingTransport();
    const relay = new OutboxRelay({ db, transport, logger: createLogger('relay-test', 'silent') });
    const first = await enqueue('first');
    const held = transport.hold();
    const firstFlush = relay.flush();
    await held.entered;
    // Committed after the running batch took its rows: only a later batch can publish it.
    const second = await enqueue('second');
    const secondFlush = relay.flush();
    held.release();
    await firstFlush;
    expect(transport.published).toContain(first.eventId);
    await secondFlush;
    expect(transport.published).toEqual([first.eventId, second.eventId]);
    await relay.stop();
  });
});
