import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, createOrganization, createWorkspace } from './support/fixtures.js';
import { createRun, type InternalRunsApi, internalRunsApi, planJson } from './support/runs.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/*
 * The organization-wide run list and the filters both run lists honour, on data where an ignored
 * filter shows: every filter below leaves out runs the unfiltered list holds.
 */

let t: TestSystem;
let internal: InternalRunsApi;
let org: Awaited<ReturnType<typeof createOrganization>>;
const ids: Record<string, string> = Object.create(null);
let wsA: { id: string };

beforeAll(async () => {
  t = await startTestSystem();
  internal = internalRunsApi(t);
  org = await createOrganization(t, 'lists');
  wsA = await createWorkspace(org.owner.api, org.name);
  const wsB = await createWorkspace(org.owner.api, org.name);
  // Oldest first: a planned run in A, a pending plan-only run in A, a canceled run in B, a pending run in B.
  ids.planned = (await createRun(org.owner.api, wsA.id, { message: 'deploy networking' })).id;
  await internal.executor.ReportPlanFinished({ runId: ids.planned, planJson: planJson(['aws_vpc']) });
  ids.speculative = (await createRun(org.owner.api, wsA.id, { message: 'try DNS', 'plan-only': true })).id;
  ids.canceled = (await createRun(org.owner.api, wsB.id, { message: 'deploy DNS' })).id;
  await org.owner.api.post(`/runs/${ids.canceled}/actions/cancel`);
  ids.pending = (await createRun(org.owner.api, wsB.id, { message: 'rotate keys' })).id;
  // Another organization's run never shows.
  const other = await createOrganization(t, 'listsx');
  const otherWs = await createWorkspace(other.owner.api, other.name);
  await createRun(other.owner.api, otherWs.id, { message: 'deploy networking' });
});
afterAll(async () => {
  internal?.close();
  await t?.stop();
});

const list = async (query: string, path = `/organizations/${org.name}/runs`) => {
  const res = await org.owner.api.get(`${path}${query ? `?${query}` : ''}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data.map((r: { id: string }) => r.id) as string[];
};
const named = (...keys: string[]) => keys.map((k) => ids[k]);

describe('GET /organizations/:org/runs', () => {
  it("lists every run of the organization's workspaces, newest first, paginated", async () => {
    expect(await list('')).toEqual(named('pending', 'canceled', 'speculative', 'planned'));
    const page = await org.owner.api.get(`/organizations/${org.name}/runs?page[size]=3&page[number]=2`);
    expect(page.body.data.map((r: { id: string }) => r.id)).toEqual(named('planned'));
    expect(page.body.meta.pagination).toMatchObject({
      'current-page': 2,
      'total-count': 4,
      'total-pages': 2,
    });
  });

  it('includes the workspaces when asked', async () => {
    const res = await org.owner.api.get(`/organizations/${org.name}/runs?include=workspace`);
    expect(res.body.included.map((w: { type: string }) => w.type)).toEqual(['workspaces', 'workspaces']);
  });

  it('honours filter[status] (a comma list), filter[operation] and filter[source]', async () => {
    expect(await list('filter[status]=pending')).toEqual(named('pending', 'speculative'));
    expect(await list('filter[status]=planned,canceled')).toEqual(named('canceled', 'planned'));
    // Upstream statuses this system never enters are valid and match nothing.
    expect(await list('filter[status]=applied')).toEqual([]);
    expect(await list('filter[operation]=plan_only')).toEqual(named('speculative'));
    expect(await list('filter[operation]=plan_and_apply')).toEqual(named('pending', 'canceled', 'planned'));
    expect(await list('filter[operation]=destroy')).toEqual([]);
    expect(await list('filter[source]=tfe-api')).toHaveLength(4);
    expect(await list('filter[source]=tfe-ui')).toEqual([]);
    expect(await list('filter[status]=pending&filter[operation]=plan_and_apply')).toEqual(named('pending'));
  });

  it('filter[operation]=destroy lists destroy runs; a speculative destroy plan is plan_only', async () => {
    const own = await createOrganization(t, 'destroys');
    const ws = await createWorkspace(own.owner.api, own.name);
    const destroy = (await createRun(own.owner.api, ws.id, { message: 'tear down', 'is-destroy': true })).id;
    const speculative = (
      await createRun(own.owner.api, ws.id, {
        message: 'what would go',
        'is-destroy': true,
        'plan-only': true,
      })
    ).id;
    const apply = (await createRun(own.owner.api, ws.id, { message: 'build' })).id;
    const path = `/organizations/${own.name}/runs`;
    const listed = async (query: string) => {
      const res = await own.owner.api.get(`${path}?${query}`);
      expect(res.status, res.text).toBe(200);
      return res.body.data.map((r: { id: string }) => r.id) as string[];
    };
    expect(await listed('filter[operation]=destroy')).toEqual([destroy]);
    expect(await listed('filter[operation]=plan_only')).toEqual([speculative]);
    expect(await listed('filter[operation]=plan_and_apply')).toEqual([apply]);
    expect(await listed('filter[operation]=destroy,plan_and_apply')).toEqual([apply, destroy]);
  });

  it('honours search[basic] (id or message), and search[user] and search[commit], which no run here matches', async () => {
    expect(await list('search[basic]=DEPLOY')).toEqual(named('canceled', 'planned'));
    expect(await list(`search[basic]=${ids.pending}`)).toEqual(named('pending'));
    expect(await list('search[basic]=100%25')).toEqual([]);
    expect(await list(`search[user]=${org.owner.username}`)).toEqual([]);
    expect(await list('search[commit]=abc123')).toEqual([]);
  });

  it('refuses an unknown status or operation, and a filter it does not support, with a 400 naming it', async () => {
    for (const [query, parameter, code] of [
      ['filter[status]=pending,nonsense', 'filter[status]', 'RUNS_INVALID_RUN_FILTER'],
      ['filter[operation]=launch', 'filter[operation]', 'RUNS_INVALID_RUN_FILTER'],
      ['filter[agent_pool_names]=x', 'filter[agent_pool_names]', 'GATEWAY_UNSUPPORTED_PARAMETER'],
      ['sort=-created-at', 'sort', 'GATEWAY_UNSUPPORTED_PARAMETER'],
      ['filter%5B__proto__%5D=true', 'filter[__proto__]', 'GATEWAY_UNSUPPORTED_PARAMETER'],
      ['search%5Bconstructor%5D=x', 'search[constructor]', 'GATEWAY_UNSUPPORTED_PARAMETER'],
    ]) {
      const res = await org.owner.api.get(`/organizations/${org.name}/runs?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ status: '400', code, source: { parameter } });
    }
  });

  it('needs read-runs: other members, outsiders and unknown organizations get 404', async () => {
    const member = await createMember(t, org, ['manage-policies']);
    const reader = await createMember(t, org, ['read-runs']);
    expect((await member.api.get(`/organizations/${org.name}/runs`)).status).toBe(404);
    expect((await reader.api.get(`/organizations/${org.name}/runs`)).body.data).toHaveLength(4);
    const outsider = (await createOrganization(t, 'listsy')).owner;
    expect((await outsider.api.get(`/organizations/${org.name}/runs`)).status).toBe(404);
    expect((await t.admin.get('/organizations/no-such-org-here/runs')).status).toBe(404);
  });
});

describe('GET /workspaces/:id/runs honours the same filters', () => {
  it('filters one workspace runs', async () => {
    const path = `/workspaces/${wsA.id}/runs`;
    expect(await list('', path)).toEqual(named('speculative', 'planned'));
    expect(await list('filter[status]=planned', path)).toEqual(named('planned'));
    expect(await list('filter[operation]=plan_only', path)).toEqual(named('speculative'));
    expect(await list('search[basic]=dns', path)).toEqual(named('speculative'));
    const res = await org.owner.api.get(`${path}?filter[nope]=1`);
    expect(res.status).toBe(400);
    // Authentication still comes first.
    expect((await t.anonymous.get(`${path}?filter[nope]=1`)).status).toBe(401);
  });
});
