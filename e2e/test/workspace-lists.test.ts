import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from './support/api.js';
import { createMember, createOrganization, createProject, createWorkspace } from './support/fixtures.js';
import { createRun } from './support/runs.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * The workspace list's shaping parameters as go-tfe and the tfe provider send them:
 * `search[wildcard-name]`, `sort`, `filter[project][id]` and `include` (docs/api/users-and-teams.md).
 */
let t: TestSystem;
beforeAll(async () => {
  t = await startTestSystem();
});
afterAll(async () => {
  await t?.stop();
});

const names = async (api: ApiClient, org: string, query: string) => {
  const res = await api.get(`/organizations/${org}/workspaces?${query}`);
  expect(res.status, res.text).toBe(200);
  return (res.body.data as { attributes: { name: string } }[]).map((w) => w.attributes.name);
};

describe('workspace list: search[wildcard-name]', () => {
  it('matches a prefix, a suffix, both, or the exact name, case-insensitively', async () => {
    const org = await createOrganization(t);
    // Created in an order that is not the alphabetical one, so the default order shows too.
    for (const name of ['web-prod', 'api-prod', 'web-staging', 'webapp', 'my-app-test', 'prod-tools']) {
      await createWorkspace(org.owner.api, org.name, { name });
    }
    const api = org.owner.api;
    expect(await names(api, org.name, 'search%5Bwildcard-name%5D=*-prod')).toEqual(['web-prod', 'api-prod']);
    expect(await names(api, org.name, 'search%5Bwildcard-name%5D=web-*')).toEqual([
      'web-prod',
      'web-staging',
    ]);
    expect(await names(api, org.name, 'search%5Bwildcard-name%5D=*app*')).toEqual(['webapp', 'my-app-test']);
    expect(await names(api, org.name, 'search%5Bwildcard-name%5D=WEB-*')).toEqual([
      'web-prod',
      'web-staging',
    ]);
    // No wildcard: the whole name, not a substring.
    expect(await names(api, org.name, 'search%5Bwildcard-name%5D=webapp')).toEqual(['webapp']);
    expect(await names(api, org.name, 'search%5Bwildcard-name%5D=prod')).toEqual([]);
    // A `*` inside the pattern is not a wildcard.
    expect(await names(api, org.name, 'search%5Bwildcard-name%5D=web*prod')).toEqual([]);
    // Combined with the substring search, both apply.
    expect(await names(api, org.name, 'search%5Bwildcard-name%5D=web-*&search%5Bname%5D=stag')).toEqual([
      'web-staging',
    ]);
    const res = await api.get(`/organizations/${org.name}/workspaces?search%5Bwildcard-name%5D=*-prod`);
    expect(res.body.meta.pagination['total-count']).toBe(2);
  });

  it('treats LIKE metacharacters in the pattern as literal characters', async () => {
    const org = await createOrganization(t);
    await createWorkspace(org.owner.api, org.name, { name: 'a_b' });
    await createWorkspace(org.owner.api, org.name, { name: 'axb' });
    const api = org.owner.api;
    expect(await names(api, org.name, 'search%5Bwildcard-name%5D=a_b')).toEqual(['a_b']);
    expect(await names(api, org.name, 'search%5Bwildcard-name%5D=a%25')).toEqual([]);
    expect(await names(api, org.name, 'search%5Bwildcard-name%5D=a%5C*')).toEqual([]);
    expect(await names(api, org.name, 'search%5Bwildcard-name%5D=*_*')).toEqual(['a_b']);
  });
});

describe('workspace list: sort', () => {
  it('sorts by name, descending with a leading -, and keeps creation order by default', async () => {
    const org = await createOrganization(t);
    for (const name of ['beta', 'alpha', 'gamma']) await createWorkspace(org.owner.api, org.name, { name });
    const api = org.owner.api;
    expect(await names(api, org.name, '')).toEqual(['beta', 'alpha', 'gamma']);
    expect(await names(api, org.name, 'sort=name')).toEqual(['alpha', 'beta', 'gamma']);
    expect(await names(api, org.name, 'sort=-name')).toEqual(['gamma', 'beta', 'alpha']);
    // Pages follow the order.
    expect(await names(api, org.name, 'sort=-name&page%5Bsize%5D=2&page%5Bnumber%5D=2')).toEqual(['alpha']);
  });

  it.each([['current-run.created-at'], ['-current-run.created-at'], ['created-at'], ['name,-name']])(
    'refuses sort=%s with 400 naming the parameter',
    async (value) => {
      const org = await createOrganization(t);
      const res = await org.owner.api.get(
        `/organizations/${org.name}/workspaces?sort=${encodeURIComponent(value)}`,
      );
      expect(res.status, res.text).toBe(400);
      expect(res.body.errors[0]).toMatchObject({
        code: 'GATEWAY_UNSUPPORTED_PARAMETER',
        source: { parameter: 'sort' },
      });
      expect(res.body.errors[0].detail).toContain('name, -name');
    },
  );
});

describe('workspace list: filter[project][id]', () => {
  it("lists only the project's workspaces; another organization's project matches nothing", async () => {
    const org = await createOrganization(t);
    const other = await createOrganization(t);
    const api = org.owner.api;
    const payments = await createProject(api, org.name);
    const search = await createProject(api, org.name);
    await createWorkspace(api, org.name, { name: 'pay-1' }, payments.id);
    await createWorkspace(api, org.name, { name: 'search-1' }, search.id);
    await createWorkspace(api, org.name, { name: 'pay-2' }, payments.id);
    await createWorkspace(api, org.name, { name: 'default-1' });
    const foreign = await createProject(other.owner.api, other.name);
    await createWorkspace(other.owner.api, other.name, { name: 'pay-1' }, foreign.id);

    expect(await names(api, org.name, `filter%5Bproject%5D%5Bid%5D=${payments.id}`)).toEqual([
      'pay-1',
      'pay-2',
    ]);
    expect(await names(api, org.name, `filter%5Bproject%5D%5Bid%5D=${search.id}`)).toEqual(['search-1']);
    expect(await names(api, org.name, `filter%5Bproject%5D%5Bid%5D=${foreign.id}`)).toEqual([]);
    expect(
      await names(
        api,
        org.name,
        `filter%5Bproject%5D%5Bid%5D=${payments.id}&sort=-name&search%5Bwildcard-name%5D=pay-*`,
      ),
    ).toEqual(['pay-2', 'pay-1']);
  });

  it('still refuses filters it does not know', async () => {
    const org = await createOrganization(t);
    const res = await org.owner.api.get(
      `/organizations/${org.name}/workspaces?filter%5Bproject%5D%5Bname%5D=x`,
    );
    expect(res.status, res.text).toBe(400);
    expect(res.body.errors[0]).toMatchObject({
      code: 'GATEWAY_UNSUPPORTED_PARAMETER',
      source: { parameter: 'filter[project][name]' },
    });
  });
});

describe('workspaces: include', () => {
  it('includes the organization and the projects of a list, once each', async () => {
    const org = await createOrganization(t);
    const api = org.owner.api;
    const project = await createProject(api, org.name);
    const ws1 = await createWorkspace(api, org.name, {}, project.id);
    await createWorkspace(api, org.name, {}, project.id);
    await createWorkspace(api, org.name);

    const res = await api.get(`/organizations/${org.name}/workspaces?include=organization,project`);
    expect(res.status, res.text).toBe(200);
    const included = res.body.included as { type: string; id: string; attributes: Record<string, unknown> }[];
    const orgs = included.filter((r) => r.type === 'organizations');
    expect(orgs).toHaveLength(1);
    expect(orgs[0]).toMatchObject({ id: org.name, attributes: { email: `ops@${org.name}.example` } });
    const projects = included.filter((r) => r.type === 'projects');
    // Two workspaces in the project, one in the default project: two projects, each once.
    expect(projects).toHaveLength(2);
    expect(projects.map((p) => p.id)).toContain(project.id);
    const listed = (
      res.body.data as { id: string; relationships: { project: { data: { id: string } } } }[]
    ).find((w) => w.id === ws1.id);
    expect(projects.map((p) => p.id)).toContain(listed!.relationships.project.data.id);

    const plain = await api.get(`/organizations/${org.name}/workspaces`);
    expect(plain.body.included).toBeUndefined();
  });

  it('includes the organization on a show by id and by name', async () => {
    const org = await createOrganization(t);
    const ws = await createWorkspace(org.owner.api, org.name);
    for (const path of [
      `/workspaces/${ws.id}`,
      `/organizations/${org.name}/workspaces/${ws.attributes.name}`,
    ]) {
      const res = await org.owner.api.get(`${path}?include=organization`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.included).toEqual([expect.objectContaining({ type: 'organizations', id: org.name })]);
    }
  });

  it('a member who may read workspaces gets the organization included too', async () => {
    const org = await createOrganization(t);
    await createWorkspace(org.owner.api, org.name);
    const reader = await createMember(t, org, []);
    const res = await reader.api.get(`/organizations/${org.name}/workspaces?include=organization`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.included.map((r: { id: string }) => r.id)).toEqual([org.name]);
  });

  it("includes each workspace's current run: its newest run that is not plan-only, null without one", async () => {
    const org = await createOrganization(t);
    const api = org.owner.api;
    const busy = await createWorkspace(api, org.name, { name: 'busy' });
    const idle = await createWorkspace(api, org.name, { name: 'idle' });
    const speculative = await createWorkspace(api, org.name, { name: 'speculative' });
    await createRun(api, busy.id);
    const current = await createRun(api, busy.id);
    // Newer, but a speculative plan is never the current run.
    await createRun(api, busy.id, { 'plan-only': true });
    await createRun(api, speculative.id, { 'plan-only': true });

    const res = await api.get(`/organizations/${org.name}/workspaces?include=current_run&sort=name`);
    expect(res.status, res.text).toBe(200);
    const relation = (name: string) =>
      (
        res.body.data as { attributes: { name: string }; relationships: Record<string, { data: unknown }> }[]
      ).find((w) => w.attributes.name === name)!.relationships['current-run']!.data;
    expect(relation('busy')).toEqual({ type: 'runs', id: current.id });
    expect(relation('idle')).toBeNull();
    expect(relation('speculative')).toBeNull();
    expect(res.body.included.map((r: { type: string; id: string }) => [r.type, r.id])).toEqual([
      ['runs', current.id],
    ]);

    const show = await api.get(`/workspaces/${busy.id}?include=current-run`);
    expect(show.body.data.relationships['current-run']).toEqual({ data: { type: 'runs', id: current.id } });
    expect(show.body.included).toEqual([expect.objectContaining({ type: 'runs', id: current.id })]);
    // Not asked for: no current-run relationship at all (PolicyHub does not look it up).
    const plain = await api.get(`/workspaces/${idle.id}`);
    expect(plain.body.data.relationships).not.toHaveProperty('current-run');
  });

  it('includes no current run a member may not read (the relationship says null)', async () => {
    const org = await createOrganization(t);
    const ws = await createWorkspace(org.owner.api, org.name);
    await createRun(org.owner.api, ws.id);
    const member = await createMember(t, org, []);
    const res = await member.api.get(`/workspaces/${ws.id}?include=current_run`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.relationships['current-run']).toEqual({ data: null });
    expect(res.body.included).toEqual([]);
  });

  it.each([['current_run.plan'], ['locked_by'], ['readme'], ['outputs'], ['organization,current-run.plan']])(
    'refuses include=%s with 400 naming the value',
    async (value) => {
      const org = await createOrganization(t);
      const ws = await createWorkspace(org.owner.api, org.name);
      for (const path of [`/organizations/${org.name}/workspaces`, `/workspaces/${ws.id}`]) {
        const res = await org.owner.api.get(`${path}?include=${encodeURIComponent(value)}`);
        expect(res.status, res.text).toBe(400);
        expect(res.body.errors[0]).toMatchObject({ code: 'GATEWAY_INVALID_INCLUDE' });
        expect(res.body.errors[0].detail).toContain(value.split(',').pop());
      }
    },
  );
});
