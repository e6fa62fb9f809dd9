import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, createOrganization, createPolicySet, uniqueName } from './support/fixtures.js';
import { DatabaseProbe } from './support/security-db.js';
import { type SecurityTestSystem, startSecurityTestSystem } from './support/security-system.js';

/**
 * Policy set parameters over HTTP, as go-tfe's PolicySetParameters client uses them: upstream's
 * paths and `vars` resource, sensitive values write-once and never answered, never logged, and
 * sealed at rest.
 */

let t: SecurityTestSystem;
let org: Awaited<ReturnType<typeof createOrganization>>;
let probe: DatabaseProbe;
/** Every sensitive value sent in this file; none may appear in an answer or a log line. */
const SECRETS = [`s3cr3t-${uniqueName('v')}`, `rotated-${uniqueName('v')}`];
/** Every answer's text, checked for the secrets at the end. */
const answers: string[] = [];

beforeAll(async () => {
  t = await startSecurityTestSystem({ captureLogs: true });
  org = await createOrganization(t, 'params');
  probe = DatabaseProbe.of(t);
});
afterAll(async () => {
  await t?.stop();
});

const NOT_FOUND = { errors: [{ status: '404', code: 'NOT_FOUND', title: 'not found' }] };
const body = (attributes: Record<string, unknown>) => ({ data: { type: 'vars', attributes } });
const api = () => org.owner.api;
const seen = <T extends { text: string }>(res: T): T => {
  answers.push(res.text);
  return res;
};
const create = async (setId: string, attributes: Record<string, unknown>) =>
  seen(await api().post(`/policy-sets/${setId}/parameters`, body(attributes)));

describe('policy set parameters: create, show, list, update, delete', () => {
  it('creates a parameter on an empty set and answers it identically everywhere', async () => {
    const set = await createPolicySet(api(), org.name);
    const res = await create(set.id, { key: 'region', value: 'eu-west-1', category: 'policy-set' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^var-[0-9A-Za-z]{16}$/),
      type: 'vars',
      attributes: { key: 'region', value: 'eu-west-1', category: 'policy-set', sensitive: false },
      relationships: { configurable: { data: { id: set.id, type: 'policy-sets' } } },
      links: { self: `/api/v2/policy-sets/${set.id}/parameters/${res.body.data.id}` },
    });
    const show = await api().get(`/policy-sets/${set.id}/parameters/${res.body.data.id}`);
    expect(show.body.data).toEqual(res.body.data);
    const list = await api().get(`/policy-sets/${set.id}/parameters`);
    expect(list.body.data).toEqual([res.body.data]);
    expect(list.body.meta.pagination).toMatchObject({ 'current-page': 1, 'total-count': 1 });
    // An update without changes answers the same parameter.
    const same = await api().patch(`/policy-sets/${set.id}/parameters/${res.body.data.id}`, body({}));
    expect(same.status).toBe(200);
    expect(same.body.data).toEqual(res.body.data);
  });

  it('defaults value to "" and category to policy-set; works on a kind_b set too', async () => {
    const set = await createPolicySet(api(), org.name, { kind: 'kind_b' });
    const res = await create(set.id, { key: 'empty' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.attributes).toEqual({
      key: 'empty',
      value: '',
      category: 'policy-set',
      sensitive: false,
    });
    const blank = await create(set.id, { key: 'blank', value: '' });
    expect(blank.body.data.attributes.value).toBe('');
  });

  it('updates key and value, keeps keys unique per set, deletes', async () => {
    const set = await createPolicySet(api(), org.name);
    const a = (await create(set.id, { key: 'a', value: '1' })).body.data;
    await create(set.id, { key: 'b', value: '2' });
    const updated = await api().patch(
      `/policy-sets/${set.id}/parameters/${a.id}`,
      body({ key: 'newname', value: 'newvalue' }),
    );
    expect(updated.body.data.attributes).toMatchObject({ key: 'newname', value: 'newvalue' });
    const subset = await api().patch(`/policy-sets/${set.id}/parameters/${a.id}`, body({ key: 'other' }));
    expect(subset.body.data.attributes).toMatchObject({ key: 'other', value: 'newvalue' });

    const taken = await api().patch(`/policy-sets/${set.id}/parameters/${a.id}`, body({ key: 'b' }));
    expect(taken.status).toBe(422);
    expect(taken.body.errors[0]).toMatchObject({
      code: 'POLICY_SETS_PARAMETER_KEY_TAKEN',
      source: { pointer: '/data/attributes/key' },
    });
    const dup = await create(set.id, { key: 'b' });
    expect(dup.status).toBe(422);
    // Another set may use the same key.
    const other = await createPolicySet(api(), org.name);
    expect((await create(other.id, { key: 'b' })).status).toBe(201);

    const del = await api().delete(`/policy-sets/${set.id}/parameters/${a.id}`);
    expect(del.status).toBe(204);
    expect((await api().get(`/policy-sets/${set.id}/parameters/${a.id}`)).status).toBe(404);
    expect((await api().delete(`/policy-sets/${set.id}/parameters/${a.id}`)).status).toBe(404);
    expect(
      (await api().get(`/policy-sets/${set.id}/parameters`)).body.data.map(
        (p: { attributes: { key: string } }) => p.attributes.key,
      ),
    ).toEqual(['b']);
  });

  it('answers 404 for a parameter through another set, and for an unknown set', async () => {
    const set = await createPolicySet(api(), org.name);
    const other = await createPolicySet(api(), org.name);
    const p = (await create(set.id, { key: 'k' })).body.data;
    for (const res of [
      await api().get(`/policy-sets/${other.id}/parameters/${p.id}`),
      await api().patch(`/policy-sets/${other.id}/parameters/${p.id}`, body({ value: 'x' })),
      await api().delete(`/policy-sets/${other.id}/parameters/${p.id}`),
      await api().get('/policy-sets/polset-doesnotexist00/parameters'),
      await api().post('/policy-sets/polset-doesnotexist00/parameters', body({ key: 'k' })),
    ]) {
      expect(res.status, res.text).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    }
    expect((await api().get(`/policy-sets/${set.id}/parameters/${p.id}`)).body.data.attributes.value).toBe(
      '',
    );
  });

  it('deleting the set deletes its parameters', async () => {
    const set = await createPolicySet(api(), org.name);
    const p = (await create(set.id, { key: 'k' })).body.data;
    expect((await api().delete(`/policy-sets/${set.id}`)).status).toBe(204);
    const { rows } = await t.system.services['policy-sets']!.db.query(
      'SELECT 1 FROM policy_sets.policy_set_parameters WHERE id = $1',
      [p.id],
    );
    expect(rows).toEqual([]);
  });
});

describe('policy set parameters: bad input (422 with a pointer, nothing changed)', () => {
  it.each([
    ['a missing key', { value: 'v' }, '/data/attributes/key'],
    ['a blank key', { key: '' }, '/data/attributes/key'],
    ['a key over 128 characters', { key: 'k'.repeat(129) }, '/data/attributes/key'],
    ['another category', { key: 'k', category: 'terraform' }, '/data/attributes/category'],
    ['a non-boolean sensitive', { key: 'k', sensitive: 'yes' }, '/data/attributes/sensitive'],
    ['a non-string value', { key: 'k', value: 5 }, '/data/attributes/value'],
  ])('refuses %s', async (_label, attributes, pointer) => {
    const set = await createPolicySet(api(), org.name);
    // The set's creation is audited through events: let them land first.
    await probe.settle();
    const before = await probe.snapshot();
    const res = await create(set.id, attributes);
    expect(res.status, res.text).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ status: '422', source: { pointer } });
    await probe.settle();
    expect(DatabaseProbe.changedTables(before, await probe.snapshot())).toEqual([]);
  });
});

describe('sensitive parameters', () => {
  it('are write-once: the value is never answered again and sensitive cannot go back to false', async () => {
    const set = await createPolicySet(api(), org.name);
    const created = await create(set.id, { key: 'token', value: SECRETS[0], sensitive: true });
    expect(created.status).toBe(201);
    expect(created.body.data.attributes).toEqual({
      key: 'token',
      value: null,
      category: 'policy-set',
      sensitive: true,
    });
    const id = created.body.data.id;
    const path = `/policy-sets/${set.id}/parameters/${id}`;
    seen(await api().get(path));
    seen(await api().get(`/policy-sets/${set.id}/parameters`));
    const back = seen(await api().patch(path, body({ sensitive: false })));
    expect(back.status).toBe(422);
    expect(back.body.errors[0]).toMatchObject({
      code: 'POLICY_SETS_PARAMETER_SENSITIVE_WRITE_ONCE',
      source: { pointer: '/data/attributes/sensitive' },
    });
    const newValue = seen(await api().patch(path, body({ value: SECRETS[1], key: 'token2' })));
    expect(newValue.body.data.attributes).toEqual({
      key: 'token2',
      value: null,
      category: 'policy-set',
      sensitive: true,
    });
  });

  it('a plain parameter made sensitive stops answering its value', async () => {
    const set = await createPolicySet(api(), org.name);
    const p = (await create(set.id, { key: 'k', value: 'was-visible' })).body.data;
    const res = await api().patch(`/policy-sets/${set.id}/parameters/${p.id}`, body({ sensitive: true }));
    expect(res.body.data.attributes).toMatchObject({ sensitive: true, value: null });
    expect(
      (await api().get(`/policy-sets/${set.id}/parameters/${p.id}`)).body.data.attributes.value,
    ).toBeNull();
  });

  it('are stored sealed, never in the clear, and appear in no answer and no log line', async () => {
    const db = t.system.services['policy-sets']!.db;
    const { rows } = await db.query<{ dump: string }>(
      "SELECT coalesce(string_agg(to_jsonb(p)::text, '|'), '') AS dump FROM policy_sets.policy_set_parameters p",
    );
    await probe.settle();
    for (const secret of SECRETS) {
      expect(rows[0]!.dump).not.toContain(secret);
      // Nowhere else either: outboxes, events, the audit trail, any service's table.
      expect(await probe.tablesContaining(secret)).toEqual([]);
      expect(answers.filter((a) => a.includes(secret))).toEqual([]);
    }
    const { rows: sealed } = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM policy_sets.policy_set_parameters WHERE sensitive AND value IS NULL AND sealed_value IS NOT NULL',
    );
    expect(sealed[0]!.n).toBeGreaterThanOrEqual(2);
    await probe.settle();
    const lines = t.logLines();
    expect(lines.some((l) => l.includes('"service":"gateway"') && l.includes('/parameters'))).toBe(true);
    expect(lines.filter((l) => SECRETS.some((s) => l.includes(s)))).toEqual([]);
  });
});

describe('policy set parameters: who may do what', () => {
  it('hides them from other organizations and from members without manage-policies (404); a manager may', async () => {
    const set = await createPolicySet(api(), org.name);
    const p = (await create(set.id, { key: 'k', value: 'v' })).body.data;
    const outsider = await createOrganization(t, 'paramout');
    const reader = await createMember(t, org, ['read-workspaces']);
    const base = `/policy-sets/${set.id}/parameters`;
    for (const client of [outsider.owner.api, reader.api]) {
      for (const res of [
        await client.get(base),
        await client.post(base, body({ key: uniqueName('x') })),
        await client.post(base, body({ key: '' })),
        await client.get(`${base}/${p.id}`),
        await client.patch(`${base}/${p.id}`, body({ value: 'x' })),
        await client.patch(`${base}/${p.id}`, body({ value: 5 })),
        await client.delete(`${base}/${p.id}`),
      ]) {
        expect(res.status, res.text).toBe(404);
        expect(res.body).toEqual(NOT_FOUND);
      }
    }
    expect((await t.anonymous.get(base)).status).toBe(401);
    const manager = await createMember(t, org, ['manage-policies']);
    expect((await manager.api.get(`${base}/${p.id}`)).body.data.attributes.value).toBe('v');
    expect((await manager.api.post(base, body({ key: uniqueName('m') }))).status).toBe(201);
  });
});
