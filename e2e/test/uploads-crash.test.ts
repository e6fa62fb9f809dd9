import { OutboxRelay } from '@policyhub/events';
import { runDeadLettersCommand } from '@policyhub/service-kit';
import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from './support/api.js';
import { policyArchive, putArchive } from './support/archives.js';
import { createOrganization, createPolicySet } from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * The upload pipeline's failure windows (ADR 0003): the archive is stored and the outcome is in
 * storage's outbox, but policy-sets has not applied it yet. Whatever happens there, the version
 * must end up `ready` exactly once.
 */
let t: TestSystem;
let api: ApiClient;
let orgName: string;

beforeAll(async () => {
  t = await startTestSystem();
  const org = await createOrganization(t, 'crash');
  api = org.owner.api;
  orgName = org.name;
});
afterAll(() => t?.stop());

const storageDb = () => t.system.services.storage!.db;
const policySetsDb = () => t.system.services['policy-sets']!.db;

async function pendingVersion() {
  const set = await createPolicySet(api, orgName);
  const res = await api.post(`/policy-sets/${set.id}/versions`);
  expect(res.status, res.text).toBe(201);
  return { setId: set.id, id: res.body.data.id as string, upload: res.body.data.links.upload as string };
}

const versionOf = async (id: string) => (await api.get(`/policy-set-versions/${id}`)).body.data;

/** The storage.upload-completed event storage wrote for a version, and whether it was published. */
async function outboxEventFor(versionId: string) {
  const { rows } = await storageDb().query<{ event_id: string; sent_at: string | null }>(
    "SELECT event_id, sent_at FROM outbox WHERE topic = 'storage.upload-completed' AND key = $1",
    [versionId],
  );
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

const timesProcessed = async (eventId: string) =>
  (
    await policySetsDb().query<{ n: number }>(
      "SELECT count(*)::int AS n FROM processed_events WHERE consumer = 'policy-sets.upload-completed' AND event_id = $1",
      [eventId],
    )
  ).rows[0]!.n;

/** `npm run dead-letters -- --service policy-sets …` against this system's database. */
async function deadLetters(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runDeadLettersCommand(
    ['--service', 'policy-sets', ...args],
    { DATABASE_URL: t.system.databaseUrl },
    { out: (line) => out.push(line), err: (line) => err.push(line) },
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Sends an already published event again, as a relay that crashed before marking it sent would. */
async function redeliver(eventId: string) {
  await storageDb().query('UPDATE outbox SET sent_at = NULL WHERE event_id = $1', [eventId]);
  await t.system.services.storage!.relay.flush();
}

describe('crash between the stored upload and the version update', () => {
  it('policy-sets cannot apply the outcome: dead-lettered, replayed by the operator command after the fix, applied once', async () => {
    const v = await pendingVersion();
    // A fault in policy-sets' database that makes every attempt to mark the version ready fail.
    await policySetsDb().query(`
      CREATE FUNCTION refuse_ready() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN RAISE EXCEPTION 'injected fault: cannot mark % ready', NEW.id; END $$;
      CREATE TRIGGER refuse_ready BEFORE UPDATE ON policy_set_versions
        FOR EACH ROW WHEN (NEW.status = 'ready') EXECUTE FUNCTION refuse_ready();`);
    try {
      expect((await putArchive(v.upload, await policyArchive())).status).toBe(200);
      const event = await outboxEventFor(v.id);
      // The consumer retried, gave up, and parked the event where operators look (README).
      const dead = await waitFor(async () => {
        const { rows } = await policySetsDb().query(
          'SELECT consumer, topic, error, attempts FROM dead_letters WHERE event_id = $1',
          [event.event_id],
        );
        return rows.length > 0 ? rows : undefined;
      });
      expect(dead).toEqual([
        {
          consumer: 'policy-sets.upload-completed',
          topic: 'storage.upload-completed',
          error: expect.stringContaining('injected fault'),
          attempts: 5,
        },
      ]);
      expect((await versionOf(v.id)).attributes.status).toBe('pending');
      expect(await timesProcessed(event.event_id)).toBe(0);

      // The operator finds it with the dead-letter command…
      const listed = await deadLetters('list', '--json');
      expect(listed.code, listed.err).toBe(0);
      const [entry] = JSON.parse(listed.out) as Array<{ id: number; eventId: string; consumer: string }>;
      expect(entry).toMatchObject({ eventId: event.event_id, consumer: 'policy-sets.upload-completed' });
      const shown = await deadLetters('show', String(entry!.id), '--json');
      expect(JSON.parse(shown.out).payload).toMatchObject({ ownerId: v.id, ok: true });

      // …a replay before the cause is fixed fails again, through the consumer's own retries…
      const early = await deadLetters('replay', String(entry!.id));
      expect([early.code, early.out]).toEqual([1, expect.stringContaining('failed again: ')]);
      expect((await policySetsDb().query('SELECT attempts FROM dead_letters')).rows).toEqual([
        { attempts: 10 },
      ]);
      expect((await versionOf(v.id)).attributes.status).toBe('pending');

      // …and once it is fixed, the replay is applied once and the dead letter is gone.
      await policySetsDb().query(
        'DROP TRIGGER refuse_ready ON policy_set_versions; DROP FUNCTION refuse_ready()',
      );
      const replayed = await deadLetters('replay', String(entry!.id));
      expect([replayed.code, replayed.out]).toEqual([0, `#${entry!.id}  applied`]);
      expect((await versionOf(v.id)).attributes.status).toBe('ready');
      expect(await timesProcessed(event.event_id)).toBe(1);
      expect((await deadLetters('list')).out).toBe('no dead letters');
      expect((await deadLetters('replay', String(entry!.id))).code).toBe(1);

      // A redelivery from the producer's outbox changes nothing either.
      await redeliver(event.event_id);
      expect(await timesProcessed(event.event_id)).toBe(1);
      expect((await versionOf(v.id)).attributes['status-timestamps']).toEqual({
        'pending-at': expect.any(String),
        'ready-at': expect.any(String),
      });
    } finally {
      await policySetsDb().query(
        'DROP TRIGGER IF EXISTS refuse_ready ON policy_set_versions; DROP FUNCTION IF EXISTS refuse_ready()',
      );
    }
  });
  // Last: it leaves storage's own relay stopped.
  it('storage dies before publishing: its restarted relay delivers the outcome, applied once', async () => {
    const v = await pendingVersion();
    // The process "dies" right after its commit: nothing is published from now on.
    await t.system.services.storage!.relay.stop();
    expect((await putArchive(v.upload, await policyArchive())).status).toBe(200);
    expect((await versionOf(v.id)).attributes.status).toBe('pending');
    const event = await outboxEventFor(v.id);
    expect(event.sent_at).toBeNull();

    // The restarted process's relay finds the event in the outbox and publishes it.
    const restarted = new OutboxRelay({
      db: storageDb(),
      transport: t.system.transport,
      logger: t.system.logger,
    });
    await restarted.start();
    try {
      const ready = await waitFor(async () => {
        const version = await versionOf(v.id);
        return version.attributes.status === 'ready' ? version : undefined;
      });
      expect(await timesProcessed(event.event_id)).toBe(1);
      const set = (await api.get(`/policy-sets/${v.setId}`)).body.data;
      expect(set.relationships['current-version'].data.id).toBe(v.id);

      // A duplicate delivery changes nothing.
      await storageDb().query('UPDATE outbox SET sent_at = NULL WHERE event_id = $1', [event.event_id]);
      await restarted.flush();
      expect(await timesProcessed(event.event_id)).toBe(1);
      expect(await versionOf(v.id)).toEqual(ready);
    } finally {
      await restarted.stop();
    }
  });
});
