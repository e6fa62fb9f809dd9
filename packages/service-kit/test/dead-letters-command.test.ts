import { Db, type Queryable, runMigrations } from '@policyhub/db';
import {
  enqueueEvent,
  eventMigrations,
  InProcessTransport,
  OutboxRelay,
  startConsumer,
  type Subscription,
  TOPICS,
} from '@policyhub/events';
import { createLogger } from '@policyhub/telemetry';
import { createTestDatabase, type TestDatabase } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDeadLettersCommand } from '../src/dead-letters-command.js';

/**
 * The operator's dead-letter command against a real consumer on a real Postgres: what it lists
 * and shows, and that a replay goes through the consumer itself (applied exactly once, or
 * failing again with the new error), and that discard removes.
 */
let database: TestDatabase;
let db: Db;
let relay: OutboxRelay;
let consumer: Subscription;
const transport = new InProcessTransport();
const logger = createLogger('dead-letters-test', 'silent');
let failing = true;

beforeAll(async () => {
  database = await createTestDatabase('ph_dead_letters');
  // The command finds a service's tables by its name: `--service storage` is schema `storage`.
  db = new Db({ url: database.url, schema: 'storage' });
  await runMigrations(db, [
    ...eventMigrations,
    {
      name: '0001_create_applied',
      sql: 'CREATE TABLE applied (event_id uuid NOT NULL, set_id text NOT NULL)',
    },
  ]);
  relay = new OutboxRelay({ db, transport, logger });
  consumer = await startConsumer({
    name: 'storage.replay-test',
    db,
    transport,
    logger,
    maxAttempts: 2,
    retryDelayMs: 1,
    replayPollMs: 100,
    handlers: [
      {
        topic: TOPICS.policySetDeleted,
        async handle(event, tx: Queryable) {
          if (failing) throw new Error(`object store refused ${event.payload.policySetId}`);
          await tx.query('INSERT INTO applied (event_id, set_id) VALUES ($1, $2)', [
            event.eventId,
            event.payload.policySetId,
          ]);
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

async function command(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runDeadLettersCommand(
    args,
    { DATABASE_URL: database.url },
    { out: (line) => out.push(line), err: (line) => err.push(line) },
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Publishes a policy-set-deleted event through the outbox, as a producing service would. */
async function deadLetteredEvent(setId: string): Promise<{ id: number; eventId: string }> {
  const { eventId } = await db.transaction((tx) =>
    enqueueEvent(tx, TOPICS.policySetDeleted, setId, { policySetId: setId, organization: 'acme' }),
  );
  await relay.flush();
  const { rows } = await db.query<{ id: number }>('SELECT id FROM dead_letters WHERE event_id = $1', [
    eventId,
  ]);
  expect(rows).toHaveLength(1);
  return { id: rows[0]!.id, eventId };
}

const applied = async () => (await db.query('SELECT event_id, set_id FROM applied')).rows;

describe('npm run dead-letters', () => {
  it('lists and shows a dead letter with its error and decoded payload', async () => {
    const dead = await deadLetteredEvent('polset-listed');

    const listed = await command('--service', 'storage', 'list');
    expect(listed.code).toBe(0);
    expect(listed.out).toContain(
      `#${dead.id}  storage.replay-test  policy-sets.policy-set-deleted  event ${dead.eventId}`,
    );
    expect(listed.out).toContain('Error: object store refused polset-listed');

    const shown = await command('--service', 'storage', 'show', String(dead.id), '--json');
    expect(JSON.parse(shown.out)).toMatchObject({
      id: dead.id,
      consumer: 'storage.replay-test',
      attempts: 2,
      replayRequestedAt: null,
      payload: { policySetId: 'polset-listed', organization: 'acme', eventId: dead.eventId },
    });
    expect((await command('--service', 'storage', 'discard', String(dead.id))).code).toBe(0);
  });

  it('replays through the consumer: a failure is recorded again, a success is applied exactly once', async () => {
    failing = true;
    const dead = await deadLetteredEvent('polset-replayed');

    const again = await command('--service', 'storage', 'replay', String(dead.id));
    expect(again.code).toBe(1);
    expect(again.out).toBe(`#${dead.id}  failed again: Error: object store refused polset-replayed`);
    const [row] = (
      await db.query('SELECT attempts, replay_requested_at FROM dead_letters WHERE id = $1', [dead.id])
    ).rows;
    expect(row).toEqual({ attempts: 4, replay_requested_at: null });
    expect(await applied()).toEqual([]);

    failing = false;
    const replayed = await command('--service', 'storage', 'replay', String(dead.id));
    expect([replayed.code, replayed.out]).toEqual([0, `#${dead.id}  applied`]);
    expect(await applied()).toEqual([{ event_id: dead.eventId, set_id: 'polset-replayed' }]);
    expect((await db.query('SELECT count(*)::int AS n FROM dead_letters')).rows[0]).toEqual({ n: 0 });

    // Gone once applied; and a redelivery of the same event is a no-op for the consumer.
    const twice = await command('--service', 'storage', 'replay', String(dead.id));
    expect(twice.code).toBe(1);
    expect(twice.err).toContain(`no dead letter ${dead.id}`);
    await db.query('UPDATE outbox SET sent_at = NULL WHERE event_id = $1', [dead.eventId]);
    await relay.flush();
    expect(await applied()).toHaveLength(1);
  });

  it('replays every dead letter of a consumer with --all', async () => {
    failing = true;
    const first = await deadLetteredEvent('polset-all-1');
    const second = await deadLetteredEvent('polset-all-2');
    failing = false;

    const all = await command(
      '--service',
      'storage',
      'replay',
      '--all',
      '--consumer',
      'storage.replay-test',
      '--json',
    );
    expect(all.code).toBe(0);
    expect(JSON.parse(all.out)).toEqual({
      replayed: [
        { id: first.id, outcome: 'applied' },
        { id: second.id, outcome: 'applied' },
      ],
    });
    expect((await applied()).map((r) => r.set_id)).toEqual(
      expect.arrayContaining(['polset-all-1', 'polset-all-2']),
    );
    expect((await command('--service', 'storage', 'replay', '--all')).out).toBe('nothing to replay');
  });

  it('discards a dead letter for good', async () => {
    failing = true;
    const dead = await deadLetteredEvent('polset-discarded');
    const discarded = await command('--service', 'storage', 'discard', String(dead.id));
    expect(discarded.code).toBe(0);
    expect(discarded.out).toContain(`discarded #${dead.id}`);
    expect((await command('--service', 'storage', 'list')).out).toBe('no dead letters');
    expect((await command('--service', 'storage', 'discard', String(dead.id))).code).toBe(1);
  });

  it('refuses a command it cannot run (exit 2, with the usage)', async () => {
    for (const args of [
      ['list'],
      ['--service', 'nowhere', 'list'],
      ['--service', 'storage', 'replay'],
      ['--service', 'storage', 'replay', '--all', '7'],
      ['--service', 'storage', 'show', 'x1'],
      ['--service', 'storage', 'drop'],
    ]) {
      const res = await command(...args);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.err, args.join(' ')).toContain('usage: npm run dead-letters');
    }
  });
});
