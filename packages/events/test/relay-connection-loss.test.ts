import { Db, runMigrations } from '@policyhub/db';
import { createLogger } from '@policyhub/telemetry';
import { createTestDatabase, type TestDatabase, waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BusMessage,
  enqueueEvent,
  eventMigrations,
  type EventTransport,
  OutboxRelay,
  TOPICS,
} from '../src/index.js';

/**
 * Postgres can drop the relay's connection while the relay holds its transaction open across a
 * publish (a restart, a failover). The process must survive it (an unhandled 'error' event of the
 * checked-out pg client used to crash it), the event must stay unsent, and the next flush must
 * publish it again: re-sent, never lost.
 */
let database: TestDatabase;
let db: Db;
let observer: Db;

beforeAll(async () => {
  database = await createTestDatabase('ph_relay_loss');
  db = new Db({ url: database.url, schema: 'relay_loss' });
  observer = new Db({ url: database.url, schema: 'relay_loss', applicationName: 'observer' });
  await runMigrations(db, eventMigrations);
});
afterAll(async () => {
  await db?.close();
  await observer?.close();
  await database?.drop();
});

/** A transport whose first publish has Postgres kill the relay's open transaction mid-publish. */
class ConnectionKillingTransport implements EventTransport {
  readonly kind = 'in-process' as const;
  readonly published: BusMessage[] = [];
  private killed = false;

  async probe(): Promise<void> {}

  async publish(messages: BusMessage[]): Promise<void> {
    this.published.push(...messages);
    if (this.killed) return;
    this.killed = true;
    const { rows } = await observer.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND state = 'idle in transaction' AND pid <> pg_backend_pid()`,
    );
    expect(rows).toHaveLength(1);
    const pid = rows[0]!.pid;
    await observer.query('SELECT pg_terminate_backend($1)', [pid]);
    // The relay's client sits idle in its transaction while its server process goes away.
    await waitFor(async () => {
      const { rowCount } = await observer.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid]);
      return rowCount === 0;
    });
  }

  async subscribe(): Promise<never> {
    throw new Error('not used');
  }

  async close(): Promise<void> {}
}

describe('outbox relay when Postgres drops its connection mid-publish', () => {
  it('survives, leaves the event unsent, and publishes it again on the next flush', async () => {
    const { eventId } = await db.transaction((tx) =>
      enqueueEvent(tx, TOPICS.organizationDeleted, 'acme', { organization: 'acme' }),
    );
    const transport = new ConnectionKillingTransport();
    const relay = new OutboxRelay({ db, transport, logger: createLogger('relay-test', 'silent') });

    await relay.flush();
    const unsent = await observer.query('SELECT sent_at FROM outbox WHERE event_id = $1', [eventId]);
    expect(unsent.rows).toEqual([{ sent_at: null }]);

    await relay.flush();
    const sent = await observer.query('SELECT sent_at FROM outbox WHERE event_id = $1', [eventId]);
    expect(sent.rows).toEqual([{ sent_at: expect.any(String) }]);
    expect(transport.published.map((m) => m.eventId)).toEqual([eventId, eventId]);
    await relay.stop();
  });
});
