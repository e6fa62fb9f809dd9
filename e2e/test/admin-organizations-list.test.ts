import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminUpdate, createOrganizationAs, idsOf } from './support/admin-organizations.js';
import { createOrganization, uniqueName } from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

describe('GET /api/v2/admin/organizations', () => {
  let t: TestSystem;
  // Every organization of a test carries its own tag in its name or email, so searches by the
  // tag see exactly that test's organizations.
  const tag = uniqueName('srch');
  const alpha = `${tag}-alpha`;
  const beta = `${tag}-beta`;
  const mailOnly = uniqueName('mailonly');

  const list = (query: string) => t.admin.get(`/api/v2/admin/organizations?${query}`);

  beforeAll(async () => {
    t = await startTestSystem();
    await createOrganizationAs(t.admin, alpha, 'team@alpha.example');
    await createOrganizationAs(t.admin, beta, 'ops@beta.example');
    await createOrganizationAs(t.admin, mailOnly, `${tag}@mail.example`);
  });
  afterAll(() => t?.stop());

  it('q matches a name substring, case-insensitively', async () => {
    const res = await list(`q=${alpha.toUpperCase()}`);
    expect(res.status, res.text).toBe(200);
    expect(idsOf(res.body)).toEqual([alpha]);
    expect(res.body.meta.pagination['total-count']).toBe(1);
  });

  it('q matches a notification email substring', async () => {
    const res = await list(`q=${encodeURIComponent(`${tag}@MAIL`)}`);
    expect(idsOf(res.body)).toEqual([mailOnly]);
  });

  it('q returns organizations matching by name or by email, oldest first', async () => {
    const res = await list(`q=${tag}`);
    expect(idsOf(res.body)).toEqual([alpha, beta, mailOnly]);
  });

  it('q takes precedence over q[name] and q[email]', async () => {
    const res = await list(`q=${beta}&q%5Bname%5D=${alpha}&q%5Bemail%5D=alpha.example`);
    expect(idsOf(res.body)).toEqual([beta]);
  });

  it('q[name] searches names only, q[email] emails only, and both together must both match', async () => {
    expect(idsOf((await list(`q[name]=${tag}`)).body)).toEqual([alpha, beta]);
    expect(idsOf((await list(`q[email]=${tag}`)).body)).toEqual([mailOnly]);
    expect(idsOf((await list(`q%5Bname%5D=${tag}&q%5Bemail%5D=alpha.example`)).body)).toEqual([alpha]);
    expect(idsOf((await list(`q%5Bname%5D=${tag}-beta&q%5Bemail%5D=alpha.example`)).body)).toEqual([]);
  });

  it('q without hits answers an empty first page with total-count 0', async () => {
    const res = await list(`q=${uniqueName('nothing')}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.meta.pagination).toMatchObject({
      'current-page': 1,
      'total-count': 0,
      'prev-page': null,
      'next-page': null,
    });
    expect(res.body.meta['status-counts']).toEqual({ total: 0, active: 0, disabled: 0 });
  });

  it('treats LIKE wildcards in q as literal characters', async () => {
    for (const q of ['%25', '_', `${tag.slice(0, 3)}%25`]) {
      const res = await list(`q=${q}`);
      expect(res.status).toBe(200);
      expect(res.body.data, q).toEqual([]);
    }
  });

  it('without search parameters lists every organization', async () => {
    const res = await list('page[size]=100');
    expect(idsOf(res.body)).toEqual(expect.arrayContaining([alpha, beta, mailOnly]));
    expect(res.body.meta.pagination['total-count']).toBe(res.body.data.length);
  });

  it('meta.status-counts counts the matching organizations by state', async () => {
    const s = uniqueName('counts');
    for (const n of ['a', 'b', 'c']) await createOrganizationAs(t.admin, `${s}-${n}`);
    expect((await adminUpdate(t, `${s}-b`, { 'is-disabled': true })).status).toBe(200);
    const res = await list(`q=${s}&page[size]=1`);
    expect(res.body.meta['status-counts']).toEqual({ total: 3, active: 2, disabled: 1 });
    expect(res.body.meta.pagination['total-count']).toBe(3);
  });

  it('paginates with meta.pagination and absolute links; a page past the end is empty', async () => {
    const first = await list(`q=${tag}&page%5Bsize%5D=2`);
    expect(idsOf(first.body)).toEqual([alpha, beta]);
    expect(first.body.meta.pagination).toEqual({
      'current-page': 1,
      'page-size': 2,
      'prev-page': null,
      'next-page': 2,
      'total-pages': 2,
      'total-count': 3,
    });
    expect(first.body.links.next).toMatch(
      /^http:\/\/.+\/api\/v2\/admin\/organizations\?.*page%5Bnumber%5D=2/,
    );
    const next = await t.admin.get(first.body.links.next);
    expect(idsOf(next.body)).toEqual([mailOnly]);
    const past = await list(`q=${tag}&page[number]=9&page[size]=2`);
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual([]);
    expect(past.body.meta.pagination).toMatchObject({ 'current-page': 9, 'total-count': 3 });
  });

  it('filter[module_producer] separates organizations that share modules from the rest', async () => {
    const s = uniqueName('modf');
    const [global, partnered, consumer] = [`${s}-global`, `${s}-partner`, `${s}-consumer`];
    for (const n of [global, partnered, consumer]) await createOrganizationAs(t.admin, n);
    expect((await adminUpdate(t, global, { 'global-module-sharing': true })).status).toBe(200);
    const set = await t.admin.patch(`/admin/organizations/${partnered}/relationships/module-consumers`, {
      data: [{ type: 'organizations', id: consumer }],
    });
    expect(set.status, set.text).toBe(204);

    expect(idsOf((await list(`q=${s}&filter%5Bmodule_producer%5D=true`)).body)).toEqual([global, partnered]);
    expect(idsOf((await list(`q=${s}&filter[module_producer]=false`)).body)).toEqual([consumer]);
    expect(idsOf((await list(`q=${s}`)).body)).toEqual([global, partnered, consumer]);
  });

  it('filter[provider_producer] separates organizations that share providers from the rest', async () => {
    const s = uniqueName('provf');
    const [global, partnered, consumer] = [`${s}-global`, `${s}-partner`, `${s}-consumer`];
    for (const n of [global, partnered, consumer]) await createOrganizationAs(t.admin, n);
    expect((await adminUpdate(t, global, { 'global-provider-sharing': true })).status).toBe(200);
    const set = await t.admin.put(`/admin/organizations/${partnered}/registry-partnerships`, {
      data: { type: 'registry-partnerships', attributes: { 'provider-consumers': [consumer] } },
    });
    expect(set.status, set.text).toBe(204);

    expect(idsOf((await list(`q=${s}&filter%5Bprovider_producer%5D=true`)).body)).toEqual([
      global,
      partnered,
    ]);
    expect(idsOf((await list(`q=${s}&filter[provider_producer]=false`)).body)).toEqual([consumer]);
    // Module sharing is a separate setting.
    expect(idsOf((await list(`q=${s}&filter[module_producer]=true`)).body)).toEqual([]);
  });

  it('include=owners puts the owners of every listed organization in included', async () => {
    const s = uniqueName('owners');
    const first = await createOrganization(t, s);
    const second = await createOrganization(t, s);
    const res = await list(`q=${s}&include=owners`);
    expect(res.status, res.text).toBe(200);
    expect(idsOf(res.body)).toEqual([first.name, second.name]);
    expect(res.body.data.map((o: { relationships: { owners: unknown } }) => o.relationships.owners)).toEqual([
      { data: [{ id: first.owner.id, type: 'users' }] },
      { data: [{ id: second.owner.id, type: 'users' }] },
    ]);
    const users = res.body.included;
    expect(users.map((u: { type: string; id: string }) => [u.type, u.id]).sort()).toEqual(
      [
        ['users', first.owner.id],
        ['users', second.owner.id],
      ].sort(),
    );
    for (const u of users) {
      expect(u.attributes.username).toMatch(/\S/);
      expect(u.attributes.email).toMatch(/@/);
    }
    // Without include there is no included member.
    expect((await list(`q=${s}`)).body.included).toBeUndefined();
  });

  it('rejects an unknown include with 400 and a non-boolean filter with 422', async () => {
    const include = await list('include=teams');
    expect(include.status).toBe(400);
    expect(include.body.errors[0].detail).toMatch(/include parameter/);
    const filter = await list('filter[module_producer]=yes');
    expect(filter.status).toBe(422);
    expect(filter.body.errors[0].source).toEqual({ parameter: 'filter[module_producer]' });
    expect((await list('page[size]=101')).status).toBe(422);
  });
});
