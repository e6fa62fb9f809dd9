import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from './support/api.js';
import {
  createMember,
  createOrganization,
  createPolicy,
  createPolicySet,
  createWorkspace,
  uniqueName,
} from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

let t: TestSystem;
let org: Awaited<ReturnType<typeof createOrganization>>;
beforeAll(async () => {
  t = await startTestSystem();
  org = await createOrganization(t, 'access');
});
afterAll(async () => {
  await t?.stop();
});

const NOT_FOUND = { errors: [{ status: '404', code: 'NOT_FOUND', title: 'not found' }] };
const UNAUTHORIZED = { errors: [{ status: '401', code: 'UNAUTHORIZED', title: 'unauthorized' }] };
const RELATIONSHIPS = ['policies', 'projects', 'workspaces', 'workspace-exclusions'];

/** Every policy set endpoint, with a valid body where one is needed (and a malformed variant). */
function everyEndpoint(
  api: ApiClient,
  orgName: string,
  setId: string,
  policyId: string,
  workspaceId: string,
) {
  const valid = { data: { type: 'policy-sets', attributes: { name: uniqueName('x') } } };
  const malformed = { data: { type: 'policy-sets', attributes: { name: 'bad name', global: 'yes' } } };
  return [
    ['list', () => api.get(`/organizations/${orgName}/policy-sets`)],
    ['create', () => api.post(`/organizations/${orgName}/policy-sets`, valid)],
    ['create (malformed)', () => api.post(`/organizations/${orgName}/policy-sets`, malformed)],
    ['show', () => api.get(`/policy-sets/${setId}`)],
    ['show with include', () => api.get(`/policy-sets/${setId}?include=policies,workspaces`)],
    [
      'update',
      () =>
        api.patch(`/policy-sets/${setId}`, {
          data: { type: 'policy-sets', attributes: { description: 'x' } },
        }),
    ],
    ['update (malformed)', () => api.patch(`/policy-sets/${setId}`, malformed)],
    ['delete', () => api.delete(`/policy-sets/${setId}`)],
    ...RELATIONSHIPS.flatMap((rel) => {
      const body =
        rel === 'policies'
          ? { data: [{ type: 'policies', id: policyId }] }
          : { data: [{ type: rel === 'projects' ? 'projects' : 'workspaces', id: workspaceId }] };
      return [
        [`add ${rel}`, () => api.post(`/policy-sets/${setId}/relationships/${rel}`, body)],
        [`remove ${rel}`, () => api.delete(`/policy-sets/${setId}/relationships/${rel}`, body)],
        [
          `add ${rel} (malformed)`,
          () => api.post(`/policy-sets/${setId}/relationships/${rel}`, { data: [{ type: 'nope', id: 'x' }] }),
        ],
      ] as const;
    }),
  ] as const;
}

describe('policy sets: authorization', () => {
  it('answers 401 on every endpoint without a token or with an unknown one', async () => {
    const set = await createPolicySet(org.owner.api, org.name);
    for (const api of [t.anonymous, t.client('not-a-token')]) {
      for (const [label, call] of everyEndpoint(api, org.name, set.id, 'pol-x', 'ws-x')) {
        const res = await call();
        expect(res.status, label).toBe(401);
        expect(res.body).toEqual(UNAUTHORIZED);
      }
    }
  });

  it('answers 404 on every endpoint to another organization and to members without manage-policies', async () => {
    const p = await createPolicy(org.owner.api, org.name);
    const ws = await createWorkspace(org.owner.api, org.name);
    const set = await createPolicySet(org.owner.api, org.name, {}, { policies: [p.id] });
    const outsider = await createOrganization(t, 'outsider');
    const member = await createMember(t, org, [
      'read-workspaces',
      'read-runs',
      'manage-workspaces',
      'manage-policy-overrides',
    ]);
    for (const [who, api] of [
      ['owner of another organization', outsider.owner.api],
      ['member without manage-policies', member.api],
    ] as const) {
      for (const [label, call] of everyEndpoint(api, org.name, set.id, p.id, ws.id)) {
        const res = await call();
        expect(res.status, `${who}: ${label}`).toBe(404);
        expect(res.body).toEqual(NOT_FOUND);
      }
    }
    // Nothing changed behind the 404s.
    expect((await org.owner.api.get(`/policy-sets/${set.id}`)).body.data).toEqual(set);
  });

  it('lets a member whose team grants manage-policies do everything', async () => {
    const manager = await createMember(t, org, ['manage-policies']);
    const ws = await createWorkspace(org.owner.api, org.name);
    const p = await createPolicy(manager.api, org.name);
    const set = await createPolicySet(manager.api, org.name, {}, { policies: [p.id] });
    expect((await manager.api.get(`/policy-sets/${set.id}?include=policies`)).status).toBe(200);
    expect(
      (
        await manager.api.post(`/policy-sets/${set.id}/relationships/workspaces`, {
          data: [{ type: 'workspaces', id: ws.id }],
        })
      ).status,
    ).toBe(204);
    expect(
      (
        await manager.api.patch(`/policy-sets/${set.id}`, {
          data: { type: 'policy-sets', attributes: { description: 'mine' } },
        })
      ).status,
    ).toBe(200);
    expect((await manager.api.delete(`/policy-sets/${set.id}`)).status).toBe(204);
  });

  it('lets a site admin manage any organization, and answers 404 for an unknown one', async () => {
    const set = await createPolicySet(t.admin, org.name);
    expect((await t.admin.get(`/policy-sets/${set.id}`)).status).toBe(200);
    const unknown = await t.admin.get('/organizations/no-such-organization/policy-sets');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(NOT_FOUND);
    const create = await t.admin.post('/organizations/no-such-organization/policy-sets', {
      data: { type: 'policy-sets', attributes: { name: 'x' } },
    });
    expect(create.status).toBe(404);
  });
});

describe('free tier (an organization entitlement, off by default)', () => {
  async function markFreeTier(name: string) {
    const client = new pg.Client({ connectionString: t.system.databaseUrl });
    await client.connect();
    try {
      await client.query('UPDATE admin_orgs.organizations SET is_free_tier = true WHERE name = $1', [name]);
    } finally {
      await client.end();
    }
  }

  it('is not enforced by default: many sets, many policies, VCS repositories', async () => {
    const o = await createOrganization(t, 'paid');
    const policies = [];
    for (let i = 0; i < 6; i++) policies.push((await createPolicy(o.owner.api, o.name)).id);
    await createPolicySet(o.owner.api, o.name, {}, { policies });
    await createPolicySet(o.owner.api, o.name, {
      'vcs-repo': { identifier: 'acme/p', 'oauth-token-id': 'ot-1' },
    });
  });

  it('when on: one set of up to five policies, no VCS repository, each refusal a clear 422', async () => {
    const o = await createOrganization(t, 'free');
    await markFreeTier(o.name);
    const policies = [];
    for (let i = 0; i < 6; i++) policies.push((await createPolicy(o.owner.api, o.name)).id);
    const create = (attributes: Record<string, unknown>, rel?: string[]) =>
      o.owner.api.post(`/organizations/${o.name}/policy-sets`, {
        data: {
          type: 'policy-sets',
          attributes: { name: uniqueName('f'), ...attributes },
          ...(rel
            ? { relationships: { policies: { data: rel.map((id) => ({ type: 'policies', id })) } } }
            : {}),
        },
      });

    const vcs = await create({ 'vcs-repo': { identifier: 'acme/p', 'oauth-token-id': 'ot-1' } });
    expect(vcs.status).toBe(422);
    expect(vcs.body.errors[0]).toMatchObject({
      source: { pointer: '/data/attributes/vcs-repo' },
      detail: expect.stringContaining('free tier'),
    });

    const six = await create({}, policies);
    expect(six.status).toBe(422);
    expect(six.body.errors[0]).toMatchObject({
      source: { pointer: '/data/relationships/policies' },
      detail: expect.stringContaining('free tier'),
    });

    const first = await create({}, policies.slice(0, 5));
    expect(first.status).toBe(201);

    const second = await create({});
    expect(second.status).toBe(422);
    expect(second.body.errors[0]).toMatchObject({
      title: 'unprocessable entity',
      detail: expect.stringContaining('free tier'),
    });

    const sixth = await o.owner.api.post(`/policy-sets/${first.body.data.id}/relationships/policies`, {
      data: [{ type: 'policies', id: policies[5] }],
    });
    expect(sixth.status).toBe(422);
    expect(sixth.body.errors[0].detail).toContain('free tier');
    const again = await o.owner.api.post(`/policy-sets/${first.body.data.id}/relationships/policies`, {
      data: [{ type: 'policies', id: policies[0] }],
    });
    expect(again.status).toBe(204);

    const list = await o.owner.api.get(`/organizations/${o.name}/policy-sets`);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0].attributes['policy-count']).toBe(5);
  });
});
