import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from './support/api.js';
import { policyArchive, putArchive } from './support/archives.js';
import { createOrganization } from './support/fixtures.js';
import {
  type MultiProcessSystem,
  metricValue,
  reportServiceOutputOnFailure,
  startMultiProcessSystem,
} from './support/multi-process.js';
import {
  deadLetters,
  pendingVersion,
  processedCounts,
  SETTLE_TIMEOUT_MS,
  settledVersion,
  UPLOAD_CONSUMER,
  uploadEvents,
  versionOf,
} from './support/pipeline-probes.js';

/**
 * "The relay process dying between publish and mark-sent": storage publishes an upload's
 * outcome to Kafka and is SIGKILLed before it marks the outbox row sent (a test hook holds its
 * relay in exactly that window). The restarted storage publishes the event again; policy-sets
 * recognises the duplicate, so the outcome is applied exactly once.
 */
const PAUSE = 'POLICYHUB_TEST_RELAY_PAUSE_BEFORE_MARK_SENT_MS';

let t: MultiProcessSystem;
let api: ApiClient;
let org: string;

beforeAll(async () => {
  // Far longer than the test needs: storage is killed inside the window, never after it.
  t = await startMultiProcessSystem({ env: { storage: { [PAUSE]: '300000' } } });
  const created = await createOrganization(t, 'killr');
  api = created.owner.api;
  org = created.name;
}, 180_000);
afterAll(() => t?.stop(), 60_000);
reportServiceOutputOnFailure(() => t);

const duplicatesSeen = async () =>
  metricValue(await t.services['policy-sets'].metrics(), 'policyhub_events_consumed_total', {
    consumer: UPLOAD_CONSUMER,
    outcome: 'duplicate',
  });

describe('SIGKILL of the relaying service between publish and mark-sent', () => {
  it('re-sends the event after the restart and the consumer applies it exactly once', async () => {
    const v = await pendingVersion(api, org);
    expect((await putArchive(v.upload, await policyArchive())).status).toBe(200);

    // Published: policy-sets applied it. Not yet marked sent: the relay is inside the window.
    const ready = await settledVersion(api, v.id);
    expect(ready.attributes.status).toBe('ready');
    const [event] = await uploadEvents(t.db('storage'), [v.id]);
    expect(event!.sent_at).toBeNull();
    const duplicatesBefore = await duplicatesSeen();

    await t.services.storage.kill();
    await t.services.storage.start({ [PAUSE]: '0' });

    // The restarted relay found the row unsent, published it again, and marked it sent.
    await waitFor(
      async () => (await uploadEvents(t.db('storage'), [v.id]))[0]!.sent_at !== null,
      SETTLE_TIMEOUT_MS,
    );
    // policy-sets received the second copy and recognised it.
    await waitFor(async () => (await duplicatesSeen()) > duplicatesBefore, SETTLE_TIMEOUT_MS);
    expect(await processedCounts(t.db('policy-sets'), UPLOAD_CONSUMER, [event!.event_id])).toEqual({
      [event!.event_id]: 1,
    });
    expect(await versionOf(api, v.id)).toEqual(ready);
    expect(await deadLetters(t.db('policy-sets'))).toEqual([]);
  }, 120_000);

  it('keeps serving uploads after the restart', async () => {
    const v = await pendingVersion(api, org);
    expect((await putArchive(v.upload, await policyArchive())).status).toBe(200);
    expect((await settledVersion(api, v.id)).attributes.status).toBe('ready');
    const [event] = await uploadEvents(t.db('storage'), [v.id]);
    await waitFor(async () => (await uploadEvents(t.db('storage'), [v.id]))[0]!.sent_at !== null);
    expect(await processedCounts(t.db('policy-sets'), UPLOAD_CONSUMER, [event!.event_id])).toEqual({
      [event!.event_id]: 1,
    });
  });
});
