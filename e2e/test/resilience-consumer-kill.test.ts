import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from './support/api.js';
import { policyArchive, putArchive, tarGzOf } from './support/archives.js';
import { createOrganization, createPolicySet, createProject, createWorkspace } from './support/fixtures.js';
import {
  type MultiProcessSystem,
  reportServiceOutputOnFailure,
  startMultiProcessSystem,
} from './support/multi-process.js';
import {
  deadLetters,
  objectFileExists,
  type PendingVersion,
  pendingVersion,
  processedCounts,
  SETTLE_TIMEOUT_MS,
  settledVersion,
  storedObjectsOf,
  UPLOAD_CONSUMER,
  uploadEvents,
} from './support/pipeline-probes.js';

/**
 * "Kill a consuming service": policy-sets (the consumer of storage.upload-completed and
 * of admin-orgs' deletions) is SIGKILLed while uploads and deletions are in flight, then started
 * again. Every acknowledged upload ends ready or errored exactly once, every cascade completes,
 * nothing is applied twice. Services run as separate processes over Kafka, so the killed process
 * loses whatever it had fetched but not committed, and Kafka delivers it again.
 */
let t: MultiProcessSystem;
let api: ApiClient;
let org: string;

beforeAll(async () => {
  t = await startMultiProcessSystem();
  const created = await createOrganization(t, 'killc');
  api = created.owner.api;
  org = created.name;
}, 180_000);
afterAll(() => t?.stop(), 60_000);
reportServiceOutputOnFailure(() => t);

const UPLOADS = 8;
/** Every third upload is rejected by storage, so "errored" outcomes cross the crash too. */
const isRejected = (i: number) => i % 3 === 2;
const archiveFor = (i: number) =>
  isRejected(i)
    ? tarGzOf([{ name: '/etc/passwd', content: 'x' }])
    : policyArchive(`main = rule { ${i} > 0 }\n`);

/** A set in `org` whose one version is ready: its archive is in storage. */
async function setWithArchive(owner: ApiClient, orgName: string) {
  const v = await pendingVersion(owner, orgName);
  expect((await putArchive(v.upload, await policyArchive())).status).toBe(200);
  expect((await settledVersion(owner, v.id)).attributes.status).toBe('ready');
  const [key] = await storedObjectsOf(t.db('storage'), orgName, v.setId);
  expect(objectFileExists(t.dataDir, key!)).toBe(true);
  return { setId: v.setId, key: key! };
}

describe('SIGKILL of the consuming service with uploads and deletions in flight', () => {
  it('applies every acknowledged upload exactly once and completes every cascade after the restart', async () => {
    const versions: PendingVersion[] = [];
    for (let i = 0; i < UPLOADS; i++) versions.push(await pendingVersion(api, org));
    const [ws1, ws2] = [await createWorkspace(api, org), await createWorkspace(api, org)];
    const project = await createProject(api, org);
    const scoped = await createPolicySet(
      api,
      org,
      {},
      { workspaces: [ws1.id, ws2.id], projects: [project.id] },
    );
    const deleted = await setWithArchive(api, org);
    const doomed = await createOrganization(t, 'killc-doomed');
    const doomedSet = await setWithArchive(doomed.owner.api, doomed.name);

    // Half the uploads race the kill, right behind a set deletion policy-sets acknowledged; the
    // other half and the admin-orgs deletions happen while it is dead.
    const early = versions
      .slice(0, UPLOADS / 2)
      .map(async (v, i) => putArchive(v.upload, await archiveFor(i)));
    expect((await api.delete(`/policy-sets/${deleted.setId}`)).status).toBe(204);
    await t.services['policy-sets'].kill();
    const late = versions
      .slice(UPLOADS / 2)
      .map(async (v, i) => putArchive(v.upload, await archiveFor(i + UPLOADS / 2)));
    const puts = await Promise.all([...early, ...late]);
    for (const [i, put] of puts.entries()) expect(put.status, put.text).toBe(isRejected(i) ? 422 : 200);
    expect((await api.delete(`/workspaces/${ws1.id}`)).status).toBe(204);
    expect((await api.delete(`/projects/${project.id}`)).status).toBe(204);
    expect((await doomed.owner.api.delete(`/organizations/${doomed.name}`)).status).toBe(204);

    // Meanwhile the API says clearly that policy sets are unavailable, not that they are broken.
    const down = await api.get(`/policy-set-versions/${versions[0]!.id}`);
    expect(down.status, down.text).toBe(503);
    expect(down.body).toEqual({
      errors: [expect.objectContaining({ status: '503', title: 'service unavailable' })],
    });

    await t.services['policy-sets'].start();

    const settled = await Promise.all(versions.map((v) => settledVersion(api, v.id, SETTLE_TIMEOUT_MS)));
    for (const [i, version] of settled.entries()) {
      expect(version.attributes.status).toBe(isRejected(i) ? 'errored' : 'ready');
      // One transition, recorded once.
      expect(Object.keys(version.attributes['status-timestamps']).sort()).toEqual(
        ['pending-at', isRejected(i) ? 'errored-at' : 'ready-at'].sort(),
      );
    }
    // One event per acknowledged upload, each recorded exactly once by the consumer.
    const events = await uploadEvents(
      t.db('storage'),
      versions.map((v) => v.id),
    );
    expect(events).toHaveLength(UPLOADS);
    const counts = await processedCounts(
      t.db('policy-sets'),
      UPLOAD_CONSUMER,
      events.map((e) => e.event_id),
    );
    expect(Object.values(counts)).toEqual(Array(UPLOADS).fill(1));

    // Every cascade completed: the ones the dead consumer missed were applied after its restart.
    await waitFor(async () => {
      const set = (await api.get(`/policy-sets/${scoped.id}`)).body.data;
      return set.relationships.workspaces.data.length === 1 && set.relationships.projects.data.length === 0;
    }, SETTLE_TIMEOUT_MS);
    const set = (await api.get(`/policy-sets/${scoped.id}`)).body.data;
    expect(set.relationships.workspaces.data).toEqual([{ type: 'workspaces', id: ws2.id }]);
    await waitFor(async () => {
      const { rows } = await t
        .db('policy-sets')
        .query('SELECT id FROM policy_sets WHERE organization = $1', [doomed.name]);
      return rows.length === 0;
    }, SETTLE_TIMEOUT_MS);
    for (const gone of [
      { org, ...deleted },
      { org: doomed.name, ...doomedSet },
    ]) {
      await waitFor(
        async () => (await storedObjectsOf(t.db('storage'), gone.org, gone.setId)).length === 0,
        SETTLE_TIMEOUT_MS,
      );
      expect(objectFileExists(t.dataDir, gone.key)).toBe(false);
    }
    expect(await deadLetters(t.db('policy-sets'))).toEqual([]);
    expect(await deadLetters(t.db('storage'))).toEqual([]);
  }, 150_000);
});
