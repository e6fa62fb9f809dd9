import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createOrganization,
  createPolicy,
  createPolicySet,
  createProject,
  createWorkspace,
  uniqueName,
} from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

let t: TestSystem;
let org: Awaited<ReturnType<typeof createOrganization>>;
beforeAll(async () => {
  t = await startTestSystem();
  org = await createOrganization(t, 'sets');
});
afterAll(async () => {
  await t?.stop();
});

const setBody = (attributes: Record<string, unknown>, relationships?: Record<string, unknown>) => ({
  data: { type: 'policy-sets', attributes, ...(relationships ? { relationships } : {}) },
});
const ids = (type: string, list: string[]) => ({ data: list.map((id) => ({ type, id })) });

describe('policy sets: create and show', () => {
  it('creates a set with only a name: the spec defaults, counts, and every relationship as linkage', async () => {
    const name = uniqueName('defaults');
    const res = await org.owner.api.post(`/organizations/${org.name}/policy-sets`, setBody({ name }));
    expect(res.status).toBe(201);
    const id = res.body.data.id;
    expect(id).toMatch(/^polset-[0-9A-Za-z]{16}$/);
    expect(res.body.data).toEqual({
      id,
      type: 'policy-sets',
      attributes: {
        name,
        description: null,
        global: false,
        kind: 'kind_a',
        overridable: false,
        'agent-enabled': false,
        'policy-tool-version': 'latest',
        'policies-path': null,
        'vcs-repo': null,
        versioned: false,
        'policy-count': 0,
        'workspace-count': 0,
        'project-count': 0,
        'created-at': expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        'updated-at': expect.stringMatching(/Z$/),
      },
      relationships: {
        organization: { data: { id: org.name, type: 'organizations' } },
        policies: { data: [] },
        workspaces: { data: [] },
        projects: { data: [] },
        'workspace-exclusions': { data: [] },
        'project-exclusions': { data: [] },
        'newest-version': { data: null },
        'current-version': { data: null },
      },
      links: { self: `/api/v2/policy-sets/${id}` },
    });
    expect(res.headers.get('content-type')).toContain('application/vnd.api+json');
  });

  it('creates a set with every attribute and relationship; create == show == list item', async () => {
    const p1 = await createPolicy(org.owner.api, org.name);
    const p2 = await createPolicy(org.owner.api, org.name);
    const ws = await createWorkspace(org.owner.api, org.name);
    const excluded = await createWorkspace(org.owner.api, org.name);
    const prj = await createProject(org.owner.api, org.name);
    const res = await org.owner.api.post(
      `/organizations/${org.name}/policy-sets`,
      setBody(
        {
          name: uniqueName('full'),
          description: '## Guardrails',
          kind: 'kind_a',
          'agent-enabled': true,
          overridable: true,
          'policy-tool-version': '0.26.0',
        },
        {
          policies: ids('policies', [p1.id, p2.id]),
          workspaces: ids('workspaces', [ws.id]),
          projects: ids('projects', [prj.id]),
          'workspace-exclusions': ids('workspaces', [excluded.id]),
        },
      ),
    );
    expect(res.status).toBe(201);
    const created = res.body.data;
    expect(created.attributes).toMatchObject({
      description: '## Guardrails',
      'agent-enabled': true,
      overridable: true,
      'policy-tool-version': '0.26.0',
      'policy-count': 2,
      'workspace-count': 1,
      'project-count': 1,
    });
    expect(created.relationships).toMatchObject({
      policies: ids('policies', [p1.id, p2.id]),
      workspaces: ids('workspaces', [ws.id]),
      projects: ids('projects', [prj.id]),
      'workspace-exclusions': ids('workspaces', [excluded.id]),
    });
    const show = await org.owner.api.get(`/policy-sets/${created.id}`);
    expect(show.status).toBe(200);
    expect(show.body.data).toEqual(created);
    const list = await org.owner.api.get(`/organizations/${org.name}/policy-sets?page%5Bsize%5D=100`);
    expect(list.body.data.find((s: { id: string }) => s.id === created.id)).toEqual(created);
  });

  it('serializes included resources exactly like their own endpoints (policies, workspaces, projects, sets)', async () => {
    const p = await createPolicy(org.owner.api, org.name);
    const ws = await createWorkspace(org.owner.api, org.name);
    const prj = await createProject(org.owner.api, org.name);
    const set = await createPolicySet(
      org.owner.api,
      org.name,
      {},
      { policies: [p.id], workspaces: [ws.id], projects: [prj.id] },
    );
    const show = await org.owner.api.get(`/policy-sets/${set.id}?include=policies,workspaces,projects`);
    const byType = (type: string) => show.body.included.filter((r: { type: string }) => r.type === type);
    expect(byType('policies')).toEqual([(await org.owner.api.get(`/policies/${p.id}`)).body.data]);
    expect(byType('workspaces')).toEqual([(await org.owner.api.get(`/workspaces/${ws.id}`)).body.data]);
    expect(byType('workspaces')[0]).toMatchObject({
      id: ws.id,
      attributes: { name: ws.attributes.name, 'created-at': ws.attributes['created-at'] },
    });
    expect(byType('projects')).toEqual([(await org.owner.api.get(`/projects/${prj.id}`)).body.data]);
    const viaPolicy = await org.owner.api.get(`/policies/${p.id}?include=policy_sets`);
    expect(viaPolicy.body.included).toEqual([set]);
  });

  it('omits the projects and workspaces keys of a global set but keeps workspace-exclusions', async () => {
    const excluded = await createWorkspace(org.owner.api, org.name);
    const set = await createPolicySet(
      org.owner.api,
      org.name,
      { global: true },
      { 'workspace-exclusions': [excluded.id] },
    );
    expect(set.attributes.global).toBe(true);
    expect(Object.keys(set.relationships).sort()).toEqual(
      [
        'current-version',
        'newest-version',
        'organization',
        'policies',
        'workspace-exclusions',
        'project-exclusions',
      ].sort(),
    );
    expect(set.relationships['workspace-exclusions']).toEqual(ids('workspaces', [excluded.id]));
    expect(set.attributes).toMatchObject({ 'workspace-count': 0, 'project-count': 0 });
  });

  it('creates kind_b sets (agent-enabled false) and VCS-backed sets (versioned)', async () => {
    const b = await createPolicySet(org.owner.api, org.name, {
      kind: 'kind_b',
      overridable: true,
      'policy-tool-version': 'v0.60.0',
    });
    expect(b.attributes).toMatchObject({
      kind: 'kind_b',
      'agent-enabled': false,
      overridable: true,
      'policy-tool-version': 'v0.60.0',
    });
    const vcs = await createPolicySet(org.owner.api, org.name, {
      'vcs-repo': {
        identifier: 'acme/policies',
        branch: 'main',
        'oauth-token-id': 'ot-123',
        'ingress-submodules': true,
      },
      'policies-path': 'sets/prod',
    });
    expect(vcs.attributes).toMatchObject({
      versioned: true,
      'policies-path': 'sets/prod',
      'vcs-repo': {
        identifier: 'acme/policies',
        'display-identifier': 'acme/policies',
        branch: 'main',
        'oauth-token-id': 'ot-123',
        'github-app-installation-id': null,
        'ingress-submodules': true,
      },
    });
    const ado = await createPolicySet(org.owner.api, org.name, {
      'vcs-repo': { identifier: 'acme/platform/_git/policies', 'github-app-installation-id': 'ghain-1' },
    });
    expect(ado.attributes['vcs-repo']).toMatchObject({
      identifier: 'acme/platform/_git/policies',
      branch: null,
      'ingress-submodules': false,
    });
  });

  it('treats an empty policy-tool-version as unset (older clients send "")', async () => {
    const set = await createPolicySet(org.owner.api, org.name, {
      'agent-enabled': false,
      'policy-tool-version': '',
    });
    expect(set.attributes['policy-tool-version']).toBe('latest');
  });
});

describe('policy sets: update', () => {
  it('requires only data.type; omitted attributes and relationships keep their values', async () => {
    const p = await createPolicy(org.owner.api, org.name);
    const ws = await createWorkspace(org.owner.api, org.name);
    const set = await createPolicySet(
      org.owner.api,
      org.name,
      { description: 'keep' },
      { policies: [p.id], workspaces: [ws.id] },
    );
    const empty = await org.owner.api.patch(`/policy-sets/${set.id}`, { data: { type: 'policy-sets' } });
    expect(empty.status).toBe(200);
    expect({ ...empty.body.data, attributes: { ...empty.body.data.attributes, 'updated-at': null } }).toEqual(
      {
        ...set,
        attributes: { ...set.attributes, 'updated-at': null },
      },
    );
    const renamed = await org.owner.api.patch(
      `/policy-sets/${set.id}`,
      setBody({ name: `${set.attributes.name}-x` }),
    );
    expect(renamed.body.data.attributes).toMatchObject({
      name: `${set.attributes.name}-x`,
      description: 'keep',
      'policy-count': 1,
    });
    expect(renamed.body.data.relationships.workspaces).toEqual(ids('workspaces', [ws.id]));
    expect((await org.owner.api.get(`/policy-sets/${set.id}`)).body.data).toEqual(renamed.body.data);
  });

  it('replaces relationships that are sent; an empty array clears one', async () => {
    const [w1, w2] = [
      await createWorkspace(org.owner.api, org.name),
      await createWorkspace(org.owner.api, org.name),
    ];
    const prj = await createProject(org.owner.api, org.name);
    const set = await createPolicySet(
      org.owner.api,
      org.name,
      {},
      { workspaces: [w1.id], projects: [prj.id], 'workspace-exclusions': [w2.id] },
    );
    const res = await org.owner.api.patch(
      `/policy-sets/${set.id}`,
      setBody(
        {},
        {
          workspaces: ids('workspaces', [w2.id]),
          projects: { data: [] },
          'workspace-exclusions': { data: [] },
        },
      ),
    );
    expect(res.status).toBe(200);
    expect(res.body.data.relationships).toMatchObject({
      workspaces: ids('workspaces', [w2.id]),
      projects: { data: [] },
      'workspace-exclusions': { data: [] },
    });
    expect(res.body.data.attributes).toMatchObject({ 'workspace-count': 1, 'project-count': 0 });
  });

  it('clears nullable attributes sent as null', async () => {
    const set = await createPolicySet(org.owner.api, org.name, { description: 'temp' });
    const res = await org.owner.api.patch(`/policy-sets/${set.id}`, setBody({ description: null }));
    expect(res.body.data.attributes.description).toBeNull();
  });

  it('turning agent-enabled off on a kind_a set resets overridable and policy-tool-version', async () => {
    const set = await createPolicySet(org.owner.api, org.name, {
      'agent-enabled': true,
      overridable: true,
      'policy-tool-version': '0.30.0',
    });
    const res = await org.owner.api.patch(`/policy-sets/${set.id}`, setBody({ 'agent-enabled': false }));
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toMatchObject({
      'agent-enabled': false,
      overridable: false,
      'policy-tool-version': 'latest',
    });
  });

  it('switching to global keeps the set valid and hides its workspaces and projects', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const set = await createPolicySet(org.owner.api, org.name, {}, { workspaces: [ws.id] });
    const global = await org.owner.api.patch(`/policy-sets/${set.id}`, setBody({ global: true }));
    expect(global.status).toBe(200);
    expect(global.body.data.relationships.workspaces).toBeUndefined();
    expect(global.body.data.attributes['workspace-count']).toBe(0);
    const back = await org.owner.api.patch(`/policy-sets/${set.id}`, setBody({ global: false }));
    expect(back.body.data.relationships.workspaces).toEqual(ids('workspaces', [ws.id]));
  });

  it('removing the VCS repository (null) also drops policies-path and makes the set unversioned', async () => {
    const set = await createPolicySet(org.owner.api, org.name, {
      'vcs-repo': { identifier: 'acme/p', 'oauth-token-id': 'ot-1' },
      'policies-path': 'x',
    });
    const res = await org.owner.api.patch(`/policy-sets/${set.id}`, setBody({ 'vcs-repo': null }));
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toMatchObject({
      'vcs-repo': null,
      'policies-path': null,
      versioned: false,
    });
  });

  it('checks the resulting state: giving policies to a set that has a VCS repository is a 422', async () => {
    const p = await createPolicy(org.owner.api, org.name);
    const set = await createPolicySet(org.owner.api, org.name, {
      'vcs-repo': { identifier: 'acme/p', 'oauth-token-id': 'ot-1' },
    });
    const res = await org.owner.api.patch(
      `/policy-sets/${set.id}`,
      setBody({}, { policies: ids('policies', [p.id]) }),
    );
    expect(res.status).toBe(422);
    expect(res.body.errors[0].source.pointer).toBe('/data/attributes/vcs-repo');
  });
});

describe('policy sets: delete', () => {
  it('answers 204, then 404 on show and on a second delete; relationships go with it', async () => {
    const p = await createPolicy(org.owner.api, org.name);
    const ws = await createWorkspace(org.owner.api, org.name);
    const set = await createPolicySet(org.owner.api, org.name, {}, { policies: [p.id], workspaces: [ws.id] });
    const del = await org.owner.api.delete(`/policy-sets/${set.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await org.owner.api.get(`/policy-sets/${set.id}`)).status).toBe(404);
    expect((await org.owner.api.delete(`/policy-sets/${set.id}`)).status).toBe(404);
    const policy = await org.owner.api.get(`/policies/${p.id}`);
    expect(policy.body.data.attributes['policy-set-count']).toBe(0);
    expect((await org.owner.api.get(`/workspaces/${ws.id}`)).status).toBe(200);
  });

  it('accepts a body-less DELETE carrying the JSON:API content type', async () => {
    const set = await createPolicySet(org.owner.api, org.name);
    const res = await org.owner.api.request('DELETE', `/policy-sets/${set.id}`, undefined, {
      'content-type': 'application/vnd.api+json',
    });
    expect(res.status).toBe(204);
  });
});
