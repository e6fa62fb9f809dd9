import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from './support/api.js';
import { policyArchive, putArchive, tarGzOf } from './support/archives.js';
import { createMember, createOrganization, createPolicySet } from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * Safe policy rollout over HTTP (docs/policy-evaluation.md, "Rolling out a policy change"): the
 * version history with its filters and roles, staged versions, promote and rollback.
 */

let t: TestSystem;
let org: Awaited<ReturnType<typeof createOrganization>>;
let api: ApiClient;

beforeAll(async () => {
  t = await startTestSystem();
  org = await createOrganization(t, 'rollout');
  api = org.owner.api;
});
afterAll(() => t?.stop());

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A version of `setId`; `autoPromote` undefined sends no body (as clients do today). */
async function createVersion(setId: string, autoPromote?: boolean, client: ApiClient = api) {
  const body =
    autoPromote === undefined
      ? undefined
      : { data: { type: 'policy-set-versions', attributes: { 'auto-promote': autoPromote } } };
  return client.request('POST', `/policy-sets/${setId}/versions`, body, {
    'content-type': 'application/vnd.api+json',
  });
}

/** A version whose upload succeeded; its id and the archive's bytes. */
async function readyVersion(setId: string, policy: string, autoPromote?: boolean) {
  const created = await createVersion(setId, autoPromote);
  expect(created.status, created.text).toBe(201);
  const archive = await policyArchive(policy);
  const put = await putArchive(created.body.data.links.upload, archive);
  expect(put.status, put.text).toBe(200);
  return { id: created.body.data.id as string, archive };
}

const ids = (res: { body: { data: Array<{ id: string }> } }) => res.body.data.map((v) => v.id);

describe('version history', () => {
  it('says who created each version, its archive checksum and its role; filters by status and pages', async () => {
    const set = await createPolicySet(api, org.name);
    const first = await readyVersion(set.id, 'main = rule { true }\n');
    const second = await readyVersion(set.id, 'main = rule { 1 == 1 }\n');
    const pending = (await createVersion(set.id)).body.data.id as string;
    const broken = await createVersion(set.id);
    const refused = await putArchive(
      broken.body.data.links.upload,
      await tarGzOf([{ name: 'x.txt', content: 'x' }]),
    );
    expect(refused.status).toBe(422);

    const all = await api.get(`/policy-sets/${set.id}/versions`);
    expect(all.status, all.text).toBe(200);
    expect(ids(all)).toEqual([broken.body.data.id, pending, second.id, first.id]);
    const byId = new Map(all.body.data.map((v: { id: string }) => [v.id, v]));
    expect(byId.get(second.id)).toMatchObject({
      attributes: { status: 'ready', role: 'current', 'archive-sha256': sha256(second.archive) },
      relationships: { 'created-by': { data: { id: org.owner.id, type: 'users' } } },
    });
    expect(byId.get(first.id)).toMatchObject({
      attributes: { status: 'ready', role: 'superseded', 'archive-sha256': sha256(first.archive) },
    });
    expect(byId.get(pending)).toMatchObject({
      attributes: { status: 'pending', role: null, 'archive-sha256': null },
    });
    expect(byId.get(broken.body.data.id)).toMatchObject({ attributes: { status: 'errored', role: null } });

    const ready = await api.get(`/policy-sets/${set.id}/versions?filter%5Bstatus%5D=ready`);
    expect(ids(ready)).toEqual([second.id, first.id]);
    expect(ready.body.meta.pagination['total-count']).toBe(2);
    const notReady = await api.get(`/policy-sets/${set.id}/versions?filter%5Bstatus%5D=pending,errored`);
    expect(ids(notReady)).toEqual([broken.body.data.id, pending]);

    const page2 = await api.get(
      `/policy-sets/${set.id}/versions?filter%5Bstatus%5D=ready&page%5Bsize%5D=1&page%5Bnumber%5D=2`,
    );
    expect(ids(page2)).toEqual([first.id]);
    expect(page2.body.meta.pagination).toMatchObject({
      'current-page': 2,
      'total-pages': 2,
      'total-count': 2,
    });

    // The version itself says the same.
    const shown = await api.get(`/policy-set-versions/${first.id}`);
    expect(shown.body.data).toEqual(byId.get(first.id));
  });

  it('refuses an unknown status word with a 422 naming the parameter, and hides the history without manage-policies', async () => {
    const set = await createPolicySet(api, org.name);
    const bad = await api.get(`/policy-sets/${set.id}/versions?filter%5Bstatus%5D=ready,live`);
    expect(bad.status, bad.text).toBe(422);
    expect(bad.body.errors[0]).toMatchObject({
      code: 'POLICY_SETS_INVALID_FILTER',
      source: { parameter: 'filter[status]' },
    });
    const reader = await createMember(t, org, ['read-runs']);
    expect((await reader.api.get(`/policy-sets/${set.id}/versions?filter%5Bstatus%5D=ready`)).status).toBe(
      404,
    );
    expect((await reader.api.get(`/policy-sets/${set.id}/versions?filter%5Bstatus%5D=live`)).status).toBe(
      404,
    );
  });
});
