import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from './support/api.js';
import { policyArchive, putArchive } from './support/archives.js';
import { createMember, createOrganization, createPolicy, createPolicySet } from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let t: TestSystem;
let org: Awaited<ReturnType<typeof createOrganization>>;
let api: ApiClient;

beforeAll(async () => {
  t = await startTestSystem();
  org = await createOrganization(t, 'versions');
  api = org.owner.api;
});
afterAll(() => t?.stop());

/** POST /policy-sets/:id/versions exactly as the Go client sends it: JSON:API content type, no body. */
const createVersion = (setId: string, client: ApiClient = api) =>
  client.request('POST', `/policy-sets/${setId}/versions`, undefined, {
    'content-type': 'application/vnd.api+json',
  });

async function readyVersion(setId: string) {
  const created = await createVersion(setId);
  expect(created.status, created.text).toBe(201);
  expect((await putArchive(created.body.data.links.upload, await policyArchive())).status).toBe(200);
  return created.body.data.id as string;
}

describe('policy set versions: create, upload, read', () => {
  it('creates a pending version with an absolute, unguessable upload URL (body-less POST)', async () => {
    const set = await createPolicySet(api, org.name);
    const res = await createVersion(set.id);
    expect(res.status, res.text).toBe(201);
    const v = res.body.data;
    expect(v).toMatchObject({
      id: expect.stringMatching(/^polsetver-[0-9A-Za-z]{16}$/),
      type: 'policy-set-versions',
      attributes: {
        source: 'tfe-api',
        status: 'pending',
        'status-timestamps': { 'pending-at': expect.stringMatching(ISO_Z) },
        error: null,
        'error-message': null,
        'ingress-attributes': null,
        'created-at': expect.stringMatching(ISO_Z),
        'updated-at': expect.stringMatching(ISO_Z),
      },
      relationships: { 'policy-set': { data: { id: set.id, type: 'policy-sets' } } },
      links: { self: `/api/v2/policy-set-versions/${v.id}` },
    });
    expect(v.attributes.created_at).toBe(v.attributes['created-at']);
    const uploadUrl = new RegExp(`^${t.system.baseUrl}/api/v2/uploads/[A-Za-z0-9_-]{60,}$`);
    expect(v.links.upload).toMatch(uploadUrl);
    expect(v.attributes.upload).toBe(v.links.upload);

    // Clients re-read the version and upload through the show response's link, minted afresh on
    // every read (as upstream does): the same document but for the URL.
    const shown = await api.get(`/policy-set-versions/${v.id}`);
    expect(shown.status).toBe(200);
    const fresh = shown.body.data.links.upload as string;
    expect(fresh).toMatch(uploadUrl);
    expect(fresh).not.toBe(v.links.upload);
    expect(shown.body.data).toEqual({
      ...v,
      attributes: { ...v.attributes, upload: fresh },
      links: { ...v.links, upload: fresh },
    });
    expect((await putArchive(fresh, await policyArchive())).status).toBe(200);
    // Single use across every URL of the version.
    expect((await putArchive(v.links.upload, await policyArchive())).status).toBe(409);
  });

  it('is ready on the first read after the PUT returns, and becomes current and newest', async () => {
    const set = await createPolicySet(api, org.name);
    const created = await createVersion(set.id);
    const put = await putArchive(created.body.data.links.upload, await policyArchive());
    expect(put.status, put.text).toBe(200);

    const shown = await api.get(`/policy-set-versions/${created.body.data.id}`);
    expect(shown.body.data.attributes).toMatchObject({
      status: 'ready',
      'status-timestamps': {
        'pending-at': created.body.data.attributes['created-at'],
        'ready-at': expect.stringMatching(ISO_Z),
      },
      error: null,
      'error-message': null,
      upload: null,
    });
    expect(shown.body.data.links.upload).toBeNull();

    const policySet = await api.get(`/policy-sets/${set.id}`);
    expect(policySet.body.data.attributes.versioned).toBe(true);
    expect(policySet.body.data.relationships['current-version'].data).toEqual({
      id: created.body.data.id,
      type: 'policy-set-versions',
    });
    expect(policySet.body.data.relationships['newest-version'].data).toEqual({
      id: created.body.data.id,
      type: 'policy-set-versions',
    });
  });

  it('keeps current-version on the ready version while a newer one is pending (include both)', async () => {
    const set = await createPolicySet(api, org.name);
    const first = await readyVersion(set.id);
    const second = (await createVersion(set.id)).body.data;

    const res = await api.get(`/policy-sets/${set.id}?include=current_version%2Cnewest_version`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.relationships['current-version'].data.id).toBe(first);
    expect(res.body.data.relationships['newest-version'].data.id).toBe(second.id);
    const statusOf = (id: string) =>
      res.body.included.find((i: { id: string }) => i.id === id)?.attributes.status;
    expect(statusOf(first)).toBe('ready');
    expect(statusOf(second.id)).toBe('pending');

    // Once the newer one is uploaded it is current too.
    expect(
      (await putArchive(second.links.upload, await policyArchive('main = rule { 1 == 1 }\n'))).status,
    ).toBe(200);
    const after = await api.get(`/policy-sets/${set.id}?include=current_version,newest_version`);
    expect(after.body.data.relationships['current-version'].data.id).toBe(second.id);
    expect(after.body.data.relationships['newest-version'].data.id).toBe(second.id);
    expect(after.body.included).toHaveLength(1);
  });

  it('serializes a version identically in create, show, list and included', async () => {
    const set = await createPolicySet(api, org.name);
    const created = (await createVersion(set.id)).body.data;
    const shown = (await api.get(`/policy-set-versions/${created.id}`)).body.data;
    const listed = (await api.get(`/policy-sets/${set.id}/versions`)).body.data[0];
    const included = (await api.get(`/policy-sets/${set.id}?include=newest_version`)).body.included[0];
    // Identical but for the upload URL, minted afresh on every read (a URL of the same upload).
    const uploadUrl = expect.stringMatching(/\/api\/v2\/uploads\/[A-Za-z0-9_-]{60,}$/);
    const anyUrl = {
      ...created,
      attributes: { ...created.attributes, upload: uploadUrl },
      links: { ...created.links, upload: uploadUrl },
    };
    for (const doc of [shown, listed, included]) {
      expect(doc).toEqual(anyUrl);
      expect(doc.attributes.upload).toBe(doc.links.upload);
    }
  });

  it('lists versions newest first with pagination', async () => {
    const set = await createPolicySet(api, org.name);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createVersion(set.id)).body.data.id);
    const page1 = await api.get(`/policy-sets/${set.id}/versions?page%5Bsize%5D=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((v: { id: string }) => v.id)).toEqual([ids[2], ids[1]]);
    expect(page1.body.meta.pagination).toMatchObject({
      'current-page': 1,
      'next-page': 2,
      'total-pages': 2,
      'total-count': 3,
    });
    const page2 = await api.get(`/policy-sets/${set.id}/versions?page[number]=2&page[size]=2`);
    expect(page2.body.data.map((v: { id: string }) => v.id)).toEqual([ids[0]]);
    const past = await api.get(`/policy-sets/${set.id}/versions?page[number]=9`);
    expect(past.body).toMatchObject({
      data: [],
      meta: { pagination: { 'current-page': 9, 'total-count': 3 } },
    });
    expect((await api.get(`/policy-sets/${set.id}/versions?page[size]=101`)).status).toBe(422);
  });

  it('includes the full policy set with include=policy_set, and refuses unknown includes', async () => {
    const set = await createPolicySet(api, org.name);
    const version = (await createVersion(set.id)).body.data;
    const res = await api.get(`/policy-set-versions/${version.id}?include=policy_set`);
    expect(res.status, res.text).toBe(200);
    const policySet = (await api.get(`/policy-sets/${set.id}`)).body.data;
    expect(res.body.included).toEqual([policySet]);
    expect((await api.get(`/policy-set-versions/${version.id}?include=policy-set`)).body.included).toEqual([
      policySet,
    ]);
    expect((await api.get(`/policy-set-versions/${version.id}?include=workspaces`)).status).toBe(400);
  });
});

describe('policy set versions: which sets take them, and who may', () => {
  it('refuses versions for a set with a VCS repository or with individual policies (422)', async () => {
    const vcs = await createPolicySet(api, org.name, {
      'vcs-repo': { identifier: 'acme/policies', 'oauth-token-id': 'ot-1' },
    });
    const policy = await createPolicy(api, org.name);
    const withPolicies = await createPolicySet(api, org.name, {}, { policies: [policy.id] });
    for (const set of [vcs, withPolicies]) {
      const res = await createVersion(set.id);
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors[0]).toMatchObject({
        status: '422',
        detail: 'The policy set does not support uploading versions',
      });
    }
    const versions = await api.get(`/policy-sets/${withPolicies.id}/versions`);
    expect(versions.body.meta.pagination['total-count']).toBe(0);
  });

  it('answers 404 to callers without manage-policies, and for unknown ids', async () => {
    const set = await createPolicySet(api, org.name);
    const version = (await createVersion(set.id)).body.data;
    const reader = await createMember(t, org, ['read-runs']);
    const outsider = (await createOrganization(t, 'other')).owner;
    for (const who of [reader.api, outsider.api]) {
      expect((await createVersion(set.id, who)).status).toBe(404);
      expect((await who.get(`/policy-set-versions/${version.id}`)).status).toBe(404);
      expect((await who.get(`/policy-sets/${set.id}/versions`)).status).toBe(404);
    }
    const manager = await createMember(t, org, ['manage-policies']);
    expect((await manager.api.get(`/policy-set-versions/${version.id}`)).status).toBe(200);
    expect((await api.get('/policy-set-versions/polsetver-0000000000000000')).body).toEqual({
      errors: [{ status: '404', code: 'NOT_FOUND', title: 'not found' }],
    });
    expect((await createVersion('polset-0000000000000000')).status).toBe(404);
    expect((await t.anonymous.get(`/policy-set-versions/${version.id}`)).status).toBe(401);
  });

  it('deletes versions and archives with their set; the upload URL then answers 404', async () => {
    const set = await createPolicySet(api, org.name);
    await readyVersion(set.id);
    const pending = (await createVersion(set.id)).body.data;
    const storage = t.system.services.storage!.db;
    const archives = async () =>
      (
        await storage.query<{ n: number }>('SELECT count(*)::int AS n FROM objects WHERE key LIKE $1', [
          `%/${set.id}/%`,
        ])
      ).rows[0]!.n;
    expect(await archives()).toBe(1);

    expect((await api.delete(`/policy-sets/${set.id}`)).status).toBe(204);
    expect((await api.get(`/policy-set-versions/${pending.id}`)).status).toBe(404);
    const put = await putArchive(pending.links.upload, await policyArchive());
    expect(put.status).toBe(404);
    expect(await archives()).toBe(0);
  });
});
