import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from './support/api.js';
import { policyArchive, putArchive, tarGzOf } from './support/archives.js';
import { createOrganizationAs } from './support/admin-organizations.js';
import { createOrganization, createUser, uniqueName } from './support/fixtures.js';
import {
  type MultiProcessSystem,
  metricValue,
  reportServiceOutputOnFailure,
  startMultiProcessSystem,
} from './support/multi-process.js';
import {
  deadLetters,
  objectFileExists,
  pendingVersion,
  processedCounts,
  STORAGE_CONSUMER,
  settledVersion,
  setDeletedEvent,
  storedObjectsOf,
  UPLOAD_CONSUMER,
  uploadEvents,
} from './support/pipeline-probes.js';

/**
 * Distributed mode: each service in its own process, events over Kafka (librdkafka's
 * mock broker). The upload pipeline and the set-deletion cascade work end to end, and both are
 * asynchronous here: the PUT returns before policy-sets has applied the outcome.
 */
let t: MultiProcessSystem;
let api: ApiClient;
let org: string;

beforeAll(async () => {
  t = await startMultiProcessSystem();
  const created = await createOrganization(t, 'kafka');
  api = created.owner.api;
  org = created.name;
}, 180_000);
afterAll(() => t?.stop(), 60_000);
reportServiceOutputOnFailure(() => t);

describe('upload pipeline over Kafka, services in separate processes', () => {
  it('a valid archive makes the version ready and the set current; the archive is stored once', async () => {
    const v = await pendingVersion(api, org);
    const put = await putArchive(v.upload, await policyArchive());
    expect(put.status, put.text).toBe(200);

    const ready = await settledVersion(api, v.id);
    expect(ready.attributes).toMatchObject({
      status: 'ready',
      error: null,
      'error-message': null,
      upload: null,
      'status-timestamps': { 'pending-at': expect.any(String), 'ready-at': expect.any(String) },
    });
    const set = await api.get(`/policy-sets/${v.setId}?include=current_version,newest_version`);
    expect(set.body.data.relationships['current-version'].data).toEqual({
      type: 'policy-set-versions',
      id: v.id,
    });
    expect(set.body.data.relationships['newest-version'].data).toEqual({
      type: 'policy-set-versions',
      id: v.id,
    });

    // storage wrote one event, published it, and policy-sets applied it exactly once.
    const [event] = await uploadEvents(t.db('storage'), [v.id]);
    expect(event?.sent_at).toEqual(expect.any(String));
    expect(await processedCounts(t.db('policy-sets'), UPLOAD_CONSUMER, [event!.event_id])).toEqual({
      [event!.event_id]: 1,
    });
    const [key] = await storedObjectsOf(t.db('storage'), org, v.setId);
    expect(key).toBe(`${org}/policy-sets/${v.setId}/versions/${v.id}.tar.gz`);
    expect(objectFileExists(t.dataDir, key!)).toBe(true);
    expect(
      metricValue(await t.services['policy-sets'].metrics(), 'policyhub_events_consumed_total', {
        consumer: UPLOAD_CONSUMER,
        outcome: 'processed',
      }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('a rejected archive makes the version errored with the reason the PUT gave', async () => {
    const v = await pendingVersion(api, org);
    const put = await putArchive(v.upload, await tarGzOf([{ name: '../escape', content: 'x' }]));
    expect(put.status, put.text).toBe(422);

    const errored = await settledVersion(api, v.id);
    expect(errored.attributes).toMatchObject({
      status: 'errored',
      error: 'STORAGE_ARCHIVE_PATH_TRAVERSAL',
      'error-message': put.body!.errors[0]!.detail,
    });
    expect(await storedObjectsOf(t.db('storage'), org, v.setId)).toEqual([]);
  });

  it('deleting a set deletes its archive: storage consumes policy-sets.policy-set-deleted', async () => {
    const v = await pendingVersion(api, org);
    expect((await putArchive(v.upload, await policyArchive())).status).toBe(200);
    await settledVersion(api, v.id);
    const [key] = await storedObjectsOf(t.db('storage'), org, v.setId);
    expect(objectFileExists(t.dataDir, key!)).toBe(true);

    const del = await api.delete(`/policy-sets/${v.setId}`);
    expect(del.status, del.text).toBe(204);
    expect((await api.get(`/policy-set-versions/${v.id}`)).status).toBe(404);

    const eventId = await setDeletedEvent(t.db('policy-sets'), v.setId);
    await waitFor(
      async () => (await processedCounts(t.db('storage'), STORAGE_CONSUMER, [eventId]))[eventId] === 1,
      30_000,
    );
    expect(await storedObjectsOf(t.db('storage'), org, v.setId)).toEqual([]);
    expect(objectFileExists(t.dataDir, key!)).toBe(false);
  });

  it('an organization name registered again while its deletion is on its way keeps its new data', async () => {
    const name = uniqueName('kafka-reused');
    const first = await createOrganization(t, 'kafka-reused', name);
    const old = await pendingVersion(first.owner.api, name);
    expect((await putArchive(old.upload, await policyArchive())).status).toBe(200);
    await settledVersion(first.owner.api, old.id);
    const [oldKey] = await storedObjectsOf(t.db('storage'), name, old.setId);

    // Hold policy-sets' and storage's consumers: each records an event in processed_events first.
    const held = ['policy-sets', 'storage'].map((service) => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const done = t.db(service as 'policy-sets' | 'storage').transaction(async (tx) => {
        await tx.query('LOCK TABLE processed_events IN EXCLUSIVE MODE');
        locked();
        await released;
      });
      return { release, done, isLocked };
    });
    await Promise.all(held.map((h) => h.isLocked));
    let fresh!: Awaited<ReturnType<typeof pendingVersion>>;
    let second!: Awaited<ReturnType<typeof createUser>>;
    try {
      expect((await t.admin.delete(`/admin/organizations/${name}`)).status).toBe(204);
      second = await createUser(t, 'kafka-second');
      await createOrganizationAs(second.api, name);
      const listed = await second.api.get(`/organizations/${name}/policy-sets`);
      expect(listed.body.data).toEqual([]);
      expect((await second.api.get(`/policy-sets/${old.setId}`)).status).toBe(404);
      fresh = await pendingVersion(second.api, name);
      expect((await putArchive(fresh.upload, await policyArchive())).status).toBe(200);
    } finally {
      for (const h of held) h.release();
      await Promise.all(held.map((h) => h.done));
    }

    const { rows } = await t
      .db('admin-orgs')
      .query<{ event_id: string }>(
        "SELECT event_id FROM outbox WHERE topic = 'admin-orgs.organization-deleted' ORDER BY id DESC LIMIT 1",
      );
    const eventId = rows[0]!.event_id;
    await waitFor(
      async () =>
        (await processedCounts(t.db('policy-sets'), 'policy-sets.admin-orgs-deletions', [eventId]))[
          eventId
        ] === 1 && (await processedCounts(t.db('storage'), STORAGE_CONSUMER, [eventId]))[eventId] === 1,
      30_000,
    );
    expect((await settledVersion(second.api, fresh.id)).attributes.status).toBe('ready');
    const listed = await second.api.get(`/organizations/${name}/policy-sets`);
    expect(listed.body.data.map((d: { id: string }) => d.id)).toEqual([fresh.setId]);
    expect(await storedObjectsOf(t.db('storage'), name, fresh.setId)).toHaveLength(1);
    expect(await storedObjectsOf(t.db('storage'), name, old.setId)).toEqual([]);
    expect(objectFileExists(t.dataDir, oldKey!)).toBe(false);
  });

  it('dead-letters nothing along the way', async () => {
    expect(await deadLetters(t.db('policy-sets'))).toEqual([]);
    expect(await deadLetters(t.db('storage'))).toEqual([]);
  });
});
