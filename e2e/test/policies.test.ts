import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMember,
  createOrganization,
  createPolicy,
  createPolicySet,
  uniqueName,
} from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

let t: TestSystem;
let org: Awaited<ReturnType<typeof createOrganization>>;
beforeAll(async () => {
  t = await startTestSystem();
  org = await createOrganization(t, 'pol');
});
afterAll(async () => {
  await t?.stop();
});

const NOT_FOUND = { errors: [{ status: '404', code: 'NOT_FOUND', title: 'not found' }] };

/** What these tests read of a JSON:API resource object. */
type Resource = { id: string; type: string; attributes: Record<string, unknown> };

const policyBody = (attributes: Record<string, unknown>) => ({ data: { type: 'policies', attributes } });

const uploadCode = async (id: string, code: string | Uint8Array) => {
  const res = await org.owner.api.put(`/policies/${id}/upload`, code, {
    'content-type': 'application/octet-stream',
  });
  expect(res.status, res.text).toBe(204);
};

describe('policies: create, show, list, update, delete', () => {
  it('creates a policy with every attribute and shows it identically', async () => {
    const name = uniqueName('guard');
    const res = await org.owner.api.post(
      `/organizations/${org.name}/policies`,
      policyBody({ name, description: 'No public buckets', 'enforcement-level': 'hard-mandatory' }),
    );
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      type: 'policies',
      attributes: {
        name,
        description: 'No public buckets',
        kind: 'kind_a',
        query: null,
        'enforcement-level': 'hard-mandatory',
        // Upstream: empty until code is uploaded, and `updated-at` is the last upload.
        enforce: [],
        'policy-set-count': 0,
        'updated-at': null,
      },
      relationships: {
        organization: { data: { id: org.name, type: 'organizations' } },
        'policy-sets': { data: [] },
      },
      links: {
        self: `/api/v2/policies/${res.body.data.id}`,
        upload: `/api/v2/policies/${res.body.data.id}/upload`,
        download: `/api/v2/policies/${res.body.data.id}/download`,
      },
    });
    expect(res.body.data.id).toMatch(/^pol-[0-9A-Za-z]{16}$/);
    expect(res.body.data.attributes['created-at']).toMatch(/\.\d{3}Z$/);
    const show = await org.owner.api.get(`/policies/${res.body.data.id}`);
    expect(show.status).toBe(200);
    expect(show.body.data).toEqual(res.body.data);
  });

  it('accepts the older enforce array form without kind (kind_a, level from mode, path echoed once code is uploaded)', async () => {
    const name = uniqueName('legacy');
    const res = await org.owner.api.post(
      `/organizations/${org.name}/policies`,
      policyBody({ name, enforce: [{ path: `${name}.sentinel`, mode: 'advisory' }] }),
    );
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toMatchObject({
      kind: 'kind_a',
      'enforcement-level': 'advisory',
      enforce: [],
    });
    await uploadCode(res.body.data.id, 'main = rule { true }');
    expect((await org.owner.api.get(`/policies/${res.body.data.id}`)).body.data.attributes).toMatchObject({
      enforce: [{ path: `${name}.sentinel`, mode: 'advisory' }],
    });
  });

  it('defaults to kind_a and soft-mandatory; kind_b policies carry a query', async () => {
    const plain = await createPolicy(org.owner.api, org.name);
    expect(plain.attributes).toMatchObject({ kind: 'kind_a', 'enforcement-level': 'soft-mandatory' });
    const b = await createPolicy(org.owner.api, org.name, { kind: 'kind_b', query: 'data.terraform.deny' });
    expect(b.attributes).toMatchObject({ kind: 'kind_b', query: 'data.terraform.deny' });
  });

  it('lists policies with search[name], filter[kind] and pagination', async () => {
    const o = await createOrganization(t, 'pollist');
    const a = await createPolicy(o.owner.api, o.name, { name: 'alpha-guard' });
    const b = await createPolicy(o.owner.api, o.name, { name: 'beta-guard', kind: 'kind_b' });
    await createPolicy(o.owner.api, o.name, { name: 'gamma' });
    const all = await o.owner.api.get(`/organizations/${o.name}/policies`);
    expect(all.status).toBe(200);
    expect(all.body.data.map((p: Resource) => p.attributes.name)).toEqual([
      'alpha-guard',
      'beta-guard',
      'gamma',
    ]);
    expect(all.body.meta.pagination).toMatchObject({ 'current-page': 1, 'total-count': 3, 'total-pages': 1 });
    expect(all.body.data[0]).toEqual(a);

    const search = await o.owner.api.get(`/organizations/${o.name}/policies?search%5Bname%5D=GUARD`);
    expect(search.body.data.map((p: Resource) => p.id)).toEqual([a.id, b.id]);
    const kindB = await o.owner.api.get(`/organizations/${o.name}/policies?filter%5Bkind%5D=kind_b`);
    expect(kindB.body.data.map((p: Resource) => p.id)).toEqual([b.id]);
    // Upstream's spelling is read too (API_VOCABULARY, vocabulary-profiles.test.ts); others are a 422.
    const opa = await o.owner.api.get(`/organizations/${o.name}/policies?filter%5Bkind%5D=opa`);
    expect(opa.body.data.map((p: Resource) => p.id)).toEqual([b.id]);
    expect((await o.owner.api.get(`/organizations/${o.name}/policies?filter%5Bkind%5D=rego`)).status).toBe(
      422,
    );
    const page2 = await o.owner.api.get(
      `/organizations/${o.name}/policies?page%5Bnumber%5D=2&page%5Bsize%5D=2`,
    );
    expect(page2.body.data.map((p: Resource) => p.attributes.name)).toEqual(['gamma']);
    expect(page2.body.meta.pagination).toMatchObject({
      'current-page': 2,
      'prev-page': 1,
      'next-page': null,
      'total-count': 3,
    });
  });

  it('updates only what is sent, also through the enforce form', async () => {
    const p = await createPolicy(org.owner.api, org.name, {
      description: 'keep me',
      'enforcement-level': 'advisory',
    });
    await uploadCode(p.id, 'main = rule { true }');
    const res = await org.owner.api.patch(
      `/policies/${p.id}`,
      policyBody({ 'enforcement-level': 'hard-mandatory' }),
    );
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toMatchObject({
      description: 'keep me',
      'enforcement-level': 'hard-mandatory',
    });
    const legacy = await org.owner.api.patch(
      `/policies/${p.id}`,
      policyBody({ enforce: [{ path: 'x.policy', mode: 'soft-mandatory' }] }),
    );
    expect(legacy.body.data.attributes).toMatchObject({
      'enforcement-level': 'soft-mandatory',
      enforce: [{ path: 'x.policy', mode: 'soft-mandatory' }],
    });
    const cleared = await org.owner.api.patch(`/policies/${p.id}`, policyBody({ description: null }));
    expect(cleared.body.data.attributes.description).toBeNull();
    expect((await org.owner.api.get(`/policies/${p.id}`)).body.data).toEqual(cleared.body.data);
  });

  it('deletes a policy that a set still holds: the set drops it and its count', async () => {
    const p = await createPolicy(org.owner.api, org.name);
    const keep = await createPolicy(org.owner.api, org.name);
    const set = await createPolicySet(org.owner.api, org.name, {}, { policies: [p.id, keep.id] });
    expect((await org.owner.api.get(`/policies/${p.id}`)).body.data.attributes['policy-set-count']).toBe(1);
    const del = await org.owner.api.delete(`/policies/${p.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await org.owner.api.get(`/policies/${p.id}`)).status).toBe(404);
    expect((await org.owner.api.delete(`/policies/${p.id}`)).status).toBe(404);
    const after = await org.owner.api.get(`/policy-sets/${set.id}`);
    expect(after.body.data.attributes['policy-count']).toBe(1);
    expect(after.body.data.relationships.policies.data).toEqual([{ id: keep.id, type: 'policies' }]);
  });

  it('shows the sets holding a policy with include=policy_sets', async () => {
    const p = await createPolicy(org.owner.api, org.name);
    const set = await createPolicySet(org.owner.api, org.name, {}, { policies: [p.id] });
    const res = await org.owner.api.get(`/policies/${p.id}?include=policy_sets`);
    expect(res.body.data.relationships['policy-sets'].data).toEqual([{ id: set.id, type: 'policy-sets' }]);
    expect(res.body.included).toEqual([set]);
    expect((await org.owner.api.get(`/policies/${p.id}?include=runs`)).status).toBe(400);
  });
});

describe('policies as upstream clients expect them', () => {
  it.each([
    ['kind_a', 'mandatory', 'advisory, soft-mandatory, hard-mandatory'],
    ['kind_b', 'soft-mandatory', 'advisory, mandatory'],
    ['kind_b', 'hard-mandatory', 'advisory, mandatory'],
  ])(
    'refuses a %s policy at level %s with a 422 naming the allowed levels; nothing is created',
    async (kind, level, allowed) => {
      const name = uniqueName('lvl');
      const res = await org.owner.api.post(
        `/organizations/${org.name}/policies`,
        policyBody({ name, kind, query: 'data.x.deny', 'enforcement-level': level }),
      );
      expect(res.status).toBe(422);
      expect(res.body.errors[0]).toMatchObject({
        code: 'POLICY_SETS_INVALID_ENFORCEMENT_LEVEL',
        detail: `Enforcement level ${level} is not valid for ${kind} policies: use ${allowed}`,
        source: { pointer: '/data/attributes/enforcement-level' },
      });
      const list = await org.owner.api.get(`/organizations/${org.name}/policies?search%5Bname%5D=${name}`);
      expect(list.body.data).toEqual([]);
    },
  );

  it("takes each kind's own levels, also through the deprecated enforce form and on update", async () => {
    for (const level of ['advisory', 'soft-mandatory', 'hard-mandatory']) {
      const a = await createPolicy(org.owner.api, org.name, { 'enforcement-level': level });
      expect(a.attributes['enforcement-level']).toBe(level);
    }
    const b = await createPolicy(org.owner.api, org.name, {
      kind: 'kind_b',
      query: 'data.terraform.deny',
      'enforcement-level': 'mandatory',
    });
    expect(b.attributes).toMatchObject({ kind: 'kind_b', 'enforcement-level': 'mandatory' });
    const viaEnforce = await org.owner.api.patch(
      `/policies/${b.id}`,
      policyBody({ enforce: [{ path: 'deny.rego', mode: 'advisory' }] }),
    );
    expect(viaEnforce.body.data.attributes['enforcement-level']).toBe('advisory');
    const wrong = await org.owner.api.patch(
      `/policies/${b.id}`,
      policyBody({ enforce: [{ path: 'deny.rego', mode: 'hard-mandatory' }] }),
    );
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors[0].source.pointer).toBe('/data/attributes/enforce/0/mode');
    expect((await org.owner.api.get(`/policies/${b.id}`)).body.data.attributes['enforcement-level']).toBe(
      'advisory',
    );
    // Without a level a kind_b policy is advisory, a kind_a one soft-mandatory.
    const plainB = await createPolicy(org.owner.api, org.name, { kind: 'kind_b' });
    expect(plainB.attributes['enforcement-level']).toBe('advisory');
  });

  it('requires a query for kind_b (also on update) and accepts and ignores one for kind_a', async () => {
    const a = await createPolicy(org.owner.api, org.name, { query: 'data.ignored' });
    expect(a.attributes.query).toBeNull();
    const b = await createPolicy(org.owner.api, org.name, { kind: 'kind_b', query: 'data.x.deny' });
    const cleared = await org.owner.api.patch(`/policies/${b.id}`, policyBody({ query: null }));
    expect(cleared.status).toBe(422);
    expect(cleared.body.errors[0]).toMatchObject({
      code: 'POLICY_SETS_QUERY_REQUIRED',
      source: { pointer: '/data/attributes/query' },
    });
    expect((await org.owner.api.get(`/policies/${b.id}`)).body.data.attributes.query).toBe('data.x.deny');
  });

  it('answers enforce [] and updated-at null until code is uploaded; download is 404 until then', async () => {
    const p = await createPolicy(org.owner.api, org.name, { 'enforcement-level': 'advisory' });
    expect(p.attributes).toMatchObject({ enforce: [], 'updated-at': null });
    const none = await org.owner.api.get(`/policies/${p.id}/download`);
    expect(none.status).toBe(404);
    expect(none.body).toEqual(NOT_FOUND);
    // A description change is not a code upload.
    await org.owner.api.patch(`/policies/${p.id}`, policyBody({ description: 'x' }));
    expect((await org.owner.api.get(`/policies/${p.id}`)).body.data.attributes['updated-at']).toBeNull();

    await uploadCode(p.id, 'main = rule { true }');
    const after = (await org.owner.api.get(`/policies/${p.id}`)).body.data;
    expect(after.attributes.enforce).toEqual([{ path: `${p.attributes.name}.policy`, mode: 'advisory' }]);
    expect(after.attributes['updated-at']).toMatch(/Z$/);
    expect(Date.parse(after.attributes['updated-at'])).toBeGreaterThanOrEqual(
      Date.parse(String(p.attributes['created-at'])),
    );
  });

  it('accepts an empty upload (with and without a content type): the code is empty, not missing', async () => {
    const p = await createPolicy(org.owner.api, org.name);
    await uploadCode(p.id, new Uint8Array());
    const got = await org.owner.api.get(`/policies/${p.id}/download`);
    expect(got.status).toBe(200);
    expect(got.text).toBe('');
    const bare = await org.owner.api.put(`/policies/${p.id}/upload`, undefined, {});
    expect(bare.status, bare.text).toBe(204);
    expect((await org.owner.api.get(`/policies/${p.id}`)).body.data.attributes.enforce).toHaveLength(1);
  });

  it('lists each policy byte for byte as its create answer', async () => {
    const o = await createOrganization(t, 'polbytes');
    const created = await o.owner.api.post(
      `/organizations/${o.name}/policies`,
      policyBody({ name: uniqueName('exact'), description: 'd', 'enforcement-level': 'hard-mandatory' }),
    );
    const list = await o.owner.api.get(`/organizations/${o.name}/policies`);
    const createdText = JSON.stringify(created.body.data);
    expect(list.text).toContain(createdText);
    expect(list.body.data).toEqual([created.body.data]);
  });
});

describe('policies: code upload and download', () => {
  it('stores the raw body of PUT /policies/:id/upload (octet-stream) and serves it back', async () => {
    const p = await createPolicy(org.owner.api, org.name);
    const code = 'import "tfplan/v2"\nmain = rule { true }\n';
    const put = await org.owner.api.put(`/policies/${p.id}/upload`, new TextEncoder().encode(code), {
      'content-type': 'application/octet-stream',
    });
    expect(put.status).toBe(204);
    const get = await org.owner.api.get(`/policies/${p.id}/download`);
    expect(get.status).toBe(200);
    expect(get.text).toBe(code);
  });

  it('accepts any content type, replaces earlier code, and works with the JSON:API media type too', async () => {
    const p = await createPolicy(org.owner.api, org.name);
    await org.owner.api.put(`/policies/${p.id}/upload`, 'first', { 'content-type': 'text/plain' });
    const json = await org.owner.api.put(`/policies/${p.id}/upload`, '{"not": "a document"}', {
      'content-type': 'application/vnd.api+json',
    });
    expect(json.status).toBe(204);
    expect((await org.owner.api.get(`/policies/${p.id}/download`)).text).toBe('{"not": "a document"}');
  });

  it('takes code up to 10 MiB, rejects more with 413 and keeps the previous code', async () => {
    const p = await createPolicy(org.owner.api, org.name);
    const max = new Uint8Array(10 * 1024 * 1024).fill(98);
    await uploadCode(p.id, max);
    const stored = await org.owner.api.get(`/policies/${p.id}/download`);
    expect(stored.status).toBe(200);
    expect(stored.text.length).toBe(max.length);
    await uploadCode(p.id, 'small');
    const big = new Uint8Array(10 * 1024 * 1024 + 1).fill(97);
    const res = await org.owner.api.put(`/policies/${p.id}/upload`, big, {
      'content-type': 'application/octet-stream',
    });
    expect(res.status).toBe(413);
    expect((await org.owner.api.get(`/policies/${p.id}/download`)).text).toBe('small');
  });

  it('answers 404 for upload and download of an unknown policy', async () => {
    const put = await org.owner.api.put('/policies/pol-doesnotexist0000/upload', 'x', {
      'content-type': 'application/octet-stream',
    });
    expect(put.status).toBe(404);
    expect((await org.owner.api.get('/policies/pol-doesnotexist0000/download')).status).toBe(404);
  });
});

describe('policies: validation (422 with a pointer)', () => {
  const create = (attributes: Record<string, unknown>) =>
    org.owner.api.post(`/organizations/${org.name}/policies`, policyBody(attributes));

  it.each([
    ['a missing name', {}, '/data/attributes/name'],
    ['a name with illegal characters', { name: 'bad name!' }, '/data/attributes/name'],
    ['an unknown kind', { name: uniqueName('k'), kind: 'kind_c' }, '/data/attributes/kind'],
    [
      'an unknown enforcement level',
      { name: uniqueName('l'), 'enforcement-level': 'mandatory-ish' },
      '/data/attributes/enforcement-level',
    ],
    [
      'an unknown enforce mode',
      { name: uniqueName('m'), enforce: [{ path: 'x', mode: 'strict' }] },
      '/data/attributes/enforce/0/mode',
    ],
    ['a kind_b policy without a query', { name: uniqueName('q'), kind: 'kind_b' }, '/data/attributes/query'],
    [
      'a kind_b policy with a blank query',
      { name: uniqueName('q'), kind: 'kind_b', query: ' ' },
      '/data/attributes/query',
    ],
    ['a non-string description', { name: uniqueName('d'), description: 5 }, '/data/attributes/description'],
  ])('rejects %s', async (_label, attributes, pointer) => {
    const res = await create(attributes);
    expect(res.status, res.text).toBe(422);
    expect(res.body.errors[0]).toMatchObject({
      status: '422',
      title: 'invalid attribute',
      source: { pointer },
    });
  });

  it('rejects a name already taken in the organization (but not in another one)', async () => {
    const p = await createPolicy(org.owner.api, org.name);
    const dup = await create({ name: p.attributes.name });
    expect(dup.status).toBe(422);
    expect(dup.body.errors[0]).toMatchObject({
      detail: 'Name has already been taken',
      source: { pointer: '/data/attributes/name' },
    });
    const other = await createOrganization(t, 'polother');
    await createPolicy(other.owner.api, other.name, { name: p.attributes.name });
  });

  it('rejects changing the kind of a policy', async () => {
    const p = await createPolicy(org.owner.api, org.name);
    const res = await org.owner.api.patch(`/policies/${p.id}`, policyBody({ kind: 'kind_b' }));
    expect(res.status).toBe(422);
    expect(res.body.errors[0].source.pointer).toBe('/data/attributes/kind');
  });
});

describe('policies: authorization', () => {
  it('answers 401 without a token', async () => {
    expect((await t.anonymous.get(`/organizations/${org.name}/policies`)).status).toBe(401);
    expect(
      (await t.anonymous.post(`/organizations/${org.name}/policies`, policyBody({ name: 'x' }))).status,
    ).toBe(401);
  });

  it('hides policies from other organizations and from members without manage-policies (404)', async () => {
    const p = await createPolicy(org.owner.api, org.name);
    const outsider = await createOrganization(t, 'outsider');
    const reader = await createMember(t, org, ['read-workspaces']);
    for (const api of [outsider.owner.api, reader.api]) {
      for (const res of [
        await api.get(`/policies/${p.id}`),
        await api.get(`/organizations/${org.name}/policies`),
        await api.post(`/organizations/${org.name}/policies`, policyBody({ name: uniqueName('x') })),
        await api.post(`/organizations/${org.name}/policies`, policyBody({ name: 'bad name' })),
        await api.patch(`/policies/${p.id}`, policyBody({ description: 'x' })),
        await api.patch(`/policies/${p.id}`, policyBody({ description: 5 })),
        await api.put(`/policies/${p.id}/upload`, 'x', { 'content-type': 'application/octet-stream' }),
        await api.get(`/policies/${p.id}/download`),
        await api.delete(`/policies/${p.id}`),
      ]) {
        expect(res.status, res.text).toBe(404);
        expect(res.body).toEqual(NOT_FOUND);
      }
    }
    expect((await org.owner.api.get(`/policies/${p.id}`)).status).toBe(200);
  });

  it('lets a member with manage-policies manage them; a site admin gets 404 for an unknown organization', async () => {
    const manager = await createMember(t, org, ['manage-policies']);
    const p = await createPolicy(manager.api, org.name);
    expect((await manager.api.delete(`/policies/${p.id}`)).status).toBe(204);
    expect((await t.admin.get('/organizations/no-such-org-xyz/policies')).status).toBe(404);
    expect(
      (await t.admin.post('/organizations/no-such-org-xyz/policies', policyBody({ name: 'x' }))).status,
    ).toBe(404);
  });
});
