import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from './support/api.js';
import { policyArchive, putArchive } from './support/archives.js';
import { createOrganization, uniqueName } from './support/fixtures.js';
import {
  type MultiProcessSystem,
  reportServiceOutputOnFailure,
  SERVICE_NAMES,
  startMultiProcessSystem,
} from './support/multi-process.js';
import {
  pendingVersion,
  processedCounts,
  SETTLE_TIMEOUT_MS,
  settledVersion,
  UPLOAD_CONSUMER,
  uploadEvents,
  versionOf,
} from './support/pipeline-probes.js';
import { type Outcome, requestWithin } from './support/request-load.js';
import { type RestartablePostgres, startRestartablePostgres } from './support/restartable-postgres.js';

/**
 * "Postgres restarted", in distributed mode: every service is its own process, events go
 * over Kafka. Postgres goes down while storage's relay holds its transaction open between
 * publishing an upload's outcome and marking it sent (a test hook widens that window). While it
 * is down the API answers clean 503s and each service reports itself not ready; no process dies
 * (a pg client losing its connection inside a transaction used to crash it); afterwards every
 * service is ready again by itself, the event is re-sent and applied once, and uploads work.
 */
const DEADLINE_MS = 20_000;
const STATEFUL = SERVICE_NAMES.filter((name) => name !== 'gateway');

let postgres: RestartablePostgres;
let t: MultiProcessSystem;
let api: ApiClient;
let org: string;

beforeAll(async () => {
  postgres = await startRestartablePostgres();
  t = await startMultiProcessSystem({
    databaseUrl: postgres.url,
    // Outlasts the PUT's response (the relay waits ≤ 2 s for it) and the checks before the outage.
    env: { storage: { POLICYHUB_TEST_RELAY_PAUSE_BEFORE_MARK_SENT_MS: '5000' } },
  });
  const created = await createOrganization(t, 'pgdist');
  api = created.owner.api;
  org = created.name;
}, 180_000);
afterAll(async () => {
  await t?.stop();
  await postgres?.destroy();
}, 60_000);
reportServiceOutputOnFailure(() => t);

const call = (method: string, url: string, body?: unknown, token: string | undefined = api.token) =>
  requestWithin(DEADLINE_MS, url.startsWith('http') ? url : `${t.baseUrl}/api/v2${url}`, {
    method,
    token,
    body,
  });

const isCleanUnavailable = (o: Outcome) =>
  o.status === 503 && o.body?.errors?.length === 1 && o.body.errors[0].status === '503';

const readiness = () =>
  Promise.all(
    STATEFUL.map(
      async (name) =>
        (await requestWithin(DEADLINE_MS, `${t.services[name].opsUrl}/readyz`, { method: 'GET' })).status,
    ),
  );

describe('Postgres restarted under the distributed system', () => {
  it('answers 503 while it is down, keeps every process alive, and recovers by itself', async () => {
    const published = await pendingVersion(api, org);
    const refused = await pendingVersion(api, org);
    expect((await putArchive(published.upload, await policyArchive())).status).toBe(200);
    const ready = await settledVersion(api, published.id);
    const [event] = await uploadEvents(t.db('storage'), [published.id]);
    expect(event!.sent_at).toBeNull(); // storage's relay is between publish and mark-sent

    await postgres.stop();
    await waitFor(
      async () => (await call('GET', `/organizations/${org}/policy-sets`)).status === 503,
      DEADLINE_MS,
    );
    const during = [
      await call('GET', `/organizations/${org}/policy-sets`),
      await call('POST', `/organizations/${org}/policy-sets`, {
        data: { type: 'policy-sets', attributes: { name: uniqueName('set') } },
      }),
      await call('GET', `/organizations/${org}`),
      await call('PUT', refused.upload, await policyArchive(), undefined),
    ];
    expect(during.filter((o) => !isCleanUnavailable(o))).toEqual([]);
    expect(await readiness()).toEqual(STATEFUL.map(() => 503));
    // Scenario, not assertion: an outage of a few seconds, outlasting the relay's pause, with the
    // relays, LISTEN connections and Kafka consumers of every process retrying in the background.
    await new Promise((r) => setTimeout(r, 6_000));

    await postgres.start();
    await waitFor(async () => (await readiness()).every((status) => status === 200), 60_000, 250);
    expect(SERVICE_NAMES.filter((name) => !t.services[name].isRunning)).toEqual([]);

    // The interrupted relay published the event again and marked it sent; it was applied once.
    await waitFor(
      async () => (await uploadEvents(t.db('storage'), [published.id]))[0]!.sent_at !== null,
      SETTLE_TIMEOUT_MS,
    );
    expect(await processedCounts(t.db('policy-sets'), UPLOAD_CONSUMER, [event!.event_id])).toEqual({
      [event!.event_id]: 1,
    });
    expect(await versionOf(api, published.id)).toEqual(ready);

    // The refused PUT spent nothing; the whole pipeline works again, over Kafka.
    const archive = await policyArchive();
    const put = await waitFor(async () => {
      const res = await putArchive(refused.upload, archive);
      return res.status === 503 ? undefined : res;
    }, 30_000);
    expect(put.status, put.text).toBe(200);
    expect((await settledVersion(api, refused.id)).attributes.status).toBe('ready');
  }, 120_000);
});
