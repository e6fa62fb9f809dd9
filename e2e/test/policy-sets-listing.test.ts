import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createOrganization,
  createPolicy,
  createPolicySet,
  createProject,
  createWorkspace,
} from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

let t: TestSystem;
let org: Awaited<ReturnType<typeof createOrganization>>;
/** Five sets in creation order: a0 (kind_a, policies), b1 (kind_b), a2 (VCS), a3 (global), b4 (kind_b). */
let sets: Array<Awaited<ReturnType<typeof createPolicySet>>>;
let fixtures: { policies: string[]; workspaces: string[]; projects: string[]; exclusion: string };

beforeAll(async () => {
  t = await startTestSystem();
  org = await createOrganization(t, 'list');
  const api = org.owner.api;
  const policies = [(await createPolicy(api, org.name)).id, (await createPolicy(api, org.name)).id];
  const workspaces = [(await createWorkspace(api, org.name)).id, (await createWorkspace(api, org.name)).id];
  const projects = [(await createProject(api, org.name)).id];
  const exclusion = (await createWorkspace(api, org.name)).id;
  fixtures = { policies, workspaces, projects, exclusion };
  sets = [
    await createPolicySet(
      api,
      org.name,
      { name: 'alpha-prod' },
      { policies, workspaces, projects, 'workspace-exclusions': [exclusion] },
    ),
    await createPolicySet(
      api,
      org.name,
      { name: 'beta-prod', kind: 'kind_b' },
      { workspaces: [workspaces[0]!] },
    ),
    await createPolicySet(api, org.name, {
      name: 'gamma-vcs',
      'vcs-repo': { identifier: 'acme/p', 'oauth-token-id': 'ot-1' },
    }),
    await createPolicySet(
      api,
      org.name,
      { name: 'delta_PROD', global: true },
      { 'workspace-exclusions': [exclusion] },
    ),
    await createPolicySet(api, org.name, { name: 'epsilon', kind: 'kind_b' }),
  ];
});
afterAll(async () => {
  await t?.stop();
});

/** What these tests read of a JSON:API resource object. */
type Resource = { id: string; type: string; attributes: Record<string, unknown> };
const list = (query = '') => org.owner.api.get(`/organizations/${org.name}/policy-sets${query}`);
const names = (res: { body: { data: Resource[] } }) => res.body.data.map((s) => s.attributes.name);

describe('policy set list', () => {
  it('lists every set in creation order with meta.pagination and links; items equal their create responses', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(sets);
    expect(res.body.included).toBeUndefined();
    expect(res.body.meta.pagination).toEqual({
      'current-page': 1,
      'page-size': 20,
      'prev-page': null,
      'next-page': null,
      'total-pages': 1,
      'total-count': 5,
    });
    const base = `${t.system.baseUrl}/api/v2/organizations/${org.name}/policy-sets`;
    expect(res.body.links).toEqual({
      self: `${base}?page%5Bnumber%5D=1&page%5Bsize%5D=20`,
      first: `${base}?page%5Bnumber%5D=1&page%5Bsize%5D=20`,
      prev: null,
      next: null,
      last: `${base}?page%5Bnumber%5D=1&page%5Bsize%5D=20`,
    });
  });

  it('pages with page[number] and page[size] (encoded or not); past the end is an empty 200', async () => {
    const page2 = await list('?page%5Bnumber%5D=2&page%5Bsize%5D=2');
    expect(names(page2)).toEqual(['gamma-vcs', 'delta_PROD']);
    expect(page2.body.meta.pagination).toMatchObject({
      'current-page': 2,
      'prev-page': 1,
      'next-page': 3,
      'total-pages': 3,
      'total-count': 5,
    });
    expect(page2.body.links.next).toContain('page%5Bnumber%5D=3');
    const raw = await list('?page[number]=3&page[size]=2');
    expect(names(raw)).toEqual(['epsilon']);
    const past = await list('?page%5Bnumber%5D=999');
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual([]);
    expect(past.body.meta.pagination).toMatchObject({ 'current-page': 999, 'total-count': 5 });
  });

  it('rejects page[size] above 100 with the upstream 422', async () => {
    const res = await list('?page%5Bsize%5D=101');
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({
      status: '422',
      title: 'invalid attribute',
      detail: 'page[size] must be between 1 and 100',
    });
  });

  it('filters by filter[kind]', async () => {
    expect(names(await list('?filter%5Bkind%5D=kind_b'))).toEqual(['beta-prod', 'epsilon']);
    expect(names(await list('?filter%5Bkind%5D=kind_a'))).toEqual(['alpha-prod', 'gamma-vcs', 'delta_PROD']);
    expect((await list('?filter%5Bkind%5D=kind_c')).status).toBe(422);
  });

  it('filters by filter[versioned]', async () => {
    expect(names(await list('?filter%5Bversioned%5D=true'))).toEqual(['gamma-vcs']);
    expect(names(await list('?filter%5Bversioned%5D=false'))).toEqual([
      'alpha-prod',
      'beta-prod',
      'delta_PROD',
      'epsilon',
    ]);
    const bad = await list('?filter%5Bversioned%5D=maybe');
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].source).toEqual({ parameter: 'filter[versioned]' });
  });

  it('searches search[name] by case-insensitive substring; total-count counts the matches', async () => {
    const res = await list('?search%5Bname%5D=prod');
    expect(names(res)).toEqual(['alpha-prod', 'beta-prod', 'delta_PROD']);
    expect(res.body.meta.pagination['total-count']).toBe(3);
    expect(names(await list('?search%5Bname%5D=_'))).toEqual(['delta_PROD']);
    const none = await list('?search%5Bname%5D=nothing-like-this');
    expect(none.body.data).toEqual([]);
    expect(none.body.meta.pagination).toMatchObject({ 'current-page': 1, 'total-count': 0 });
  });

  it('combines filters, search and pagination', async () => {
    const res = await list(
      '?filter%5Bkind%5D=kind_a&search%5Bname%5D=prod&page%5Bsize%5D=1&page%5Bnumber%5D=2',
    );
    expect(names(res)).toEqual(['delta_PROD']);
    expect(res.body.meta.pagination).toMatchObject({ 'total-count': 2, 'total-pages': 2, 'current-page': 2 });
    expect(res.body.links.self).toContain('filter%5Bkind%5D=kind_a');
  });
});

describe('include', () => {
  const includedIds = (res: { body: { included?: Resource[] } }, type: string) =>
    (res.body.included ?? []).filter((r) => r.type === type).map((r) => r.id);

  it('includes policies, workspaces, projects and workspace exclusions as full objects, once each', async () => {
    const res = await list('?include=policies,workspaces,projects,workspace_exclusions');
    expect(res.status).toBe(200);
    expect(includedIds(res, 'policies')).toEqual(fixtures.policies);
    expect(includedIds(res, 'workspaces')).toEqual([...fixtures.workspaces, fixtures.exclusion]);
    expect(includedIds(res, 'projects')).toEqual(fixtures.projects);
    for (const r of res.body.included)
      expect(r.attributes).toEqual(expect.objectContaining({ name: expect.any(String) }));
  });

  it('accepts hyphen and underscore spellings and an encoded comma', async () => {
    const hyphen = await org.owner.api.get(`/policy-sets/${sets[3]!.id}?include=workspace-exclusions`);
    const underscore = await org.owner.api.get(`/policy-sets/${sets[3]!.id}?include=workspace_exclusions`);
    expect(hyphen.body).toEqual(underscore.body);
    expect(includedIds(hyphen, 'workspaces')).toEqual([fixtures.exclusion]);
    const encoded = await org.owner.api.get(`/policy-sets/${sets[0]!.id}?include=policies%2Cprojects`);
    expect(includedIds(encoded, 'policies')).toEqual(fixtures.policies);
    expect(includedIds(encoded, 'projects')).toEqual(fixtures.projects);
  });

  it('accepts current_version and newest_version (null linkage → nothing included)', async () => {
    for (const include of ['current_version,newest_version', 'current-version%2Cnewest-version']) {
      const res = await org.owner.api.get(`/policy-sets/${sets[4]!.id}?include=${include}`);
      expect(res.status, include).toBe(200);
      expect(res.body.included).toEqual([]);
      expect(res.body.data.relationships['current-version']).toEqual({ data: null });
    }
  });

  it('includes the newest version as a full object, serialized as its own endpoint does', async () => {
    const set = await createPolicySet(org.owner.api, org.name);
    const created = await org.owner.api.post(`/policy-sets/${set.id}/versions`);
    expect(created.status).toBe(201);
    const res = await org.owner.api.get(`/policy-sets/${set.id}?include=newest_version,current_version`);
    expect(res.body.data.relationships['newest-version']).toEqual({
      data: { id: created.body.data.id, type: 'policy-set-versions' },
    });
    expect(res.body.data.relationships['current-version']).toEqual({ data: null });
    const version = (await org.owner.api.get(`/policy-set-versions/${created.body.data.id}`)).body.data;
    // Identical but for the upload URL, minted afresh on every read.
    const uploadUrl = expect.stringMatching(/\/api\/v2\/uploads\/[A-Za-z0-9_-]{60,}$/);
    expect(res.body.included).toEqual([
      {
        ...version,
        attributes: { ...version.attributes, upload: uploadUrl },
        links: { ...version.links, upload: uploadUrl },
      },
    ]);
    expect(res.body.data.attributes.versioned).toBe(true);
    await org.owner.api.delete(`/policy-sets/${set.id}`);
    expect((await org.owner.api.get(`/policy-set-versions/${created.body.data.id}`)).status).toBe(404);
  });

  it('answers 400 for an unknown include value, naming the include parameter', async () => {
    const res = await list('?include=policies,owners');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].detail).toContain('include parameter');
    expect((await org.owner.api.get(`/policy-sets/${sets[0]!.id}?include=runs`)).status).toBe(400);
  });
});

describe('cost of a request', () => {
  /**
   * Unary calls handled by the services (gateway → services, service → service), whether they
   * crossed gRPC or stayed in-process (ADR 0033): every handler call is timed into
   * policyhub_rpc_duration_seconds, read from the ops listener.
   */
  async function rpcCalls(): Promise<number> {
    const exposition = await (await fetch(`${t.system.opsUrl}/metrics`)).text();
    return exposition
      .split('\n')
      .filter((line) => line.startsWith('policyhub_rpc_duration_seconds_count{'))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  }
  const sqlQueries = () => Object.values(t.system.services).reduce((sum, s) => sum + s.db.queryCount, 0);

  /**
   * SQL queries and gRPC calls of one request. The outbox relays poll in the background, which
   * can only add queries to a window, so the smallest of a few runs is the request's own cost.
   */
  async function measure(api: typeof org.owner.api, path: string) {
    // Warm the principal cache so authentication is not part of the measurement.
    await api.get(path);
    const runs: Array<{ queries: number; calls: number; items: number }> = [];
    for (let i = 0; i < 3; i++) {
      const callsBefore = await rpcCalls();
      const before = sqlQueries();
      const res = await api.get(path);
      const queries = sqlQueries() - before;
      expect(res.status, res.text).toBe(200);
      runs.push({ queries, calls: (await rpcCalls()) - callsBefore, items: res.body.data.length });
    }
    return {
      queries: Math.min(...runs.map((r) => r.queries)),
      calls: Math.min(...runs.map((r) => r.calls)),
      items: runs[0]!.items,
    };
  }

  it('does not grow the number of SQL queries or gRPC calls with the page size', async () => {
    const o = await createOrganization(t, 'cost');
    const api = o.owner.api;
    const policy = await createPolicy(api, o.name);
    // Even sets hold a policy, odd ones a version (a set cannot have both), so any two
    // consecutive sets already need every kind of included resource.
    for (let i = 0; i < 20; i++) {
      const ws = await createWorkspace(api, o.name);
      const prj = await createProject(api, o.name);
      const set = await createPolicySet(
        api,
        o.name,
        {},
        { policies: i % 2 === 0 ? [policy.id] : [], workspaces: [ws.id], projects: [prj.id] },
      );
      if (i % 2 === 1) expect((await api.post(`/policy-sets/${set.id}/versions`)).status).toBe(201);
    }
    const include = 'include=policies,workspaces,projects,current_version,newest_version';
    const small = await measure(api, `/organizations/${o.name}/policy-sets?page%5Bsize%5D=2&${include}`);
    const large = await measure(api, `/organizations/${o.name}/policy-sets?page%5Bsize%5D=20&${include}`);
    expect([small.items, large.items]).toEqual([2, 20]);
    expect(large.queries).toBe(small.queries);
    expect(large.calls).toBe(small.calls);
    // One list call plus one batch call per included type (both versions share one).
    expect(large.calls).toBe(5);
    expect(large.queries).toBeGreaterThan(0);
  });
});
