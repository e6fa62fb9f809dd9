import { waitFor } from '@policyhub/testing';
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
beforeAll(async () => {
  t = await startTestSystem();
  org = await createOrganization(t, 'rels');
});
afterAll(async () => {
  await t?.stop();
});

const ids = (type: string, list: string[]) => ({ data: list.map((id) => ({ type, id })) });
/** What these tests read of a policy set. */
type PolicySetDoc = {
  attributes: Record<string, unknown>;
  relationships: Record<string, { data: Array<{ id: string }> }>;
};
const show = async (id: string): Promise<PolicySetDoc> =>
  (await org.owner.api.get(`/policy-sets/${id}`)).body.data;
/** The set once an event-driven effect elsewhere has reached it (admin-orgs → policy-sets). */
const showWhen = (id: string, ready: (set: PolicySetDoc) => boolean) =>
  waitFor(async () => {
    const set = await show(id);
    return ready(set) ? set : undefined;
  });
const linkage = async (id: string, key: string) => (await show(id)).relationships[key]!.data.map((r) => r.id);

/** POST or DELETE on a relationship endpoint, expecting 204 with no body. */
async function change(method: 'POST' | 'DELETE', setId: string, path: string, body: unknown) {
  const res = await org.owner.api.request(method, `/policy-sets/${setId}/relationships/${path}`, body);
  expect(res.status, res.text).toBe(204);
  expect(res.text).toBe('');
}

describe('policy set relationship endpoints', () => {
  it('adds and removes policies; counts follow; removing non-members succeeds', async () => {
    const [p1, p2, p3] = [
      await createPolicy(org.owner.api, org.name),
      await createPolicy(org.owner.api, org.name),
      await createPolicy(org.owner.api, org.name),
    ];
    const set = await createPolicySet(org.owner.api, org.name, {}, { policies: [p1.id] });
    await change('POST', set.id, 'policies', ids('policies', [p2.id, p3.id, p1.id]));
    expect(await linkage(set.id, 'policies')).toEqual([p1.id, p2.id, p3.id]);
    expect((await show(set.id)).attributes['policy-count']).toBe(3);
    await change('DELETE', set.id, 'policies', ids('policies', [p2.id, 'pol-notamember00000']));
    expect(await linkage(set.id, 'policies')).toEqual([p1.id, p3.id]);
    await change('DELETE', set.id, 'policies', ids('policies', [p2.id]));
    expect((await org.owner.api.get(`/policies/${p3.id}`)).body.data.attributes['policy-set-count']).toBe(1);
  });

  it('attaches and detaches projects and workspaces', async () => {
    const prj = await createProject(org.owner.api, org.name);
    const [w1, w2] = [
      await createWorkspace(org.owner.api, org.name),
      await createWorkspace(org.owner.api, org.name),
    ];
    const set = await createPolicySet(org.owner.api, org.name);
    await change('POST', set.id, 'projects', ids('projects', [prj.id]));
    await change('POST', set.id, 'workspaces', ids('workspaces', [w1.id, w2.id]));
    const attached = await show(set.id);
    expect(attached.attributes).toMatchObject({ 'project-count': 1, 'workspace-count': 2 });
    expect(attached.relationships.projects).toEqual(ids('projects', [prj.id]));
    await change('DELETE', set.id, 'projects', ids('projects', [prj.id]));
    await change('DELETE', set.id, 'workspaces', ids('workspaces', [w1.id]));
    const detached = await show(set.id);
    expect(detached.attributes).toMatchObject({ 'project-count': 0, 'workspace-count': 1 });
    expect(detached.relationships.workspaces).toEqual(ids('workspaces', [w2.id]));
  });

  it('adds and removes workspace exclusions on global and non-global sets; exclusions are not counted', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    for (const global of [true, false]) {
      const set = await createPolicySet(org.owner.api, org.name, { global });
      await change('POST', set.id, 'workspace-exclusions', ids('workspaces', [ws.id]));
      const excluded = await show(set.id);
      expect(excluded.relationships['workspace-exclusions']).toEqual(ids('workspaces', [ws.id]));
      expect(excluded.attributes['workspace-count']).toBe(0);
      await change('DELETE', set.id, 'workspace-exclusions', ids('workspaces', [ws.id]));
      expect(await linkage(set.id, 'workspace-exclusions')).toEqual([]);
    }
  });

  it('accepts full resource objects as elements (as the Go client re-sends them), reading only type and id', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const set = await createPolicySet(org.owner.api, org.name);
    await change('POST', set.id, 'workspaces', {
      data: [{ ...ws, relationships: { organization: { data: { id: org.name, type: 'organizations' } } } }],
    });
    expect(await linkage(set.id, 'workspaces')).toEqual([ws.id]);
  });

  it('accepts an empty list as a no-op', async () => {
    const set = await createPolicySet(org.owner.api, org.name);
    await change('POST', set.id, 'policies', { data: [] });
    await change('DELETE', set.id, 'workspaces', { data: [] });
  });

  it('refuses policies on a set with a VCS repository (add and remove)', async () => {
    const p = await createPolicy(org.owner.api, org.name);
    const set = await createPolicySet(org.owner.api, org.name, {
      'vcs-repo': { identifier: 'acme/p', 'oauth-token-id': 'ot-1' },
    });
    for (const method of ['POST', 'DELETE'] as const) {
      const res = await org.owner.api.request(
        method,
        `/policy-sets/${set.id}/relationships/policies`,
        ids('policies', [p.id]),
      );
      expect(res.status).toBe(422);
      expect(res.body.errors[0]).toMatchObject({ status: '422', detail: expect.stringContaining('VCS') });
    }
  });

  it('refuses attaching or detaching projects and workspaces on a global set', async () => {
    const prj = await createProject(org.owner.api, org.name);
    const ws = await createWorkspace(org.owner.api, org.name);
    const set = await createPolicySet(org.owner.api, org.name, { global: true });
    for (const method of ['POST', 'DELETE'] as const) {
      for (const [path, body] of [
        ['projects', ids('projects', [prj.id])],
        ['workspaces', ids('workspaces', [ws.id])],
      ] as const) {
        const res = await org.owner.api.request(method, `/policy-sets/${set.id}/relationships/${path}`, body);
        expect(res.status, `${method} ${path}`).toBe(422);
        expect(res.body.errors[0].detail).toContain('global');
      }
    }
  });

  it('rejects unknown members and members of another organization with 422, changing nothing', async () => {
    const other = await createOrganization(t, 'relsother');
    const foreignPolicy = await createPolicy(other.owner.api, other.name);
    const foreignWs = await createWorkspace(other.owner.api, other.name);
    const foreignPrj = await createProject(other.owner.api, other.name);
    const mine = await createPolicy(org.owner.api, org.name);
    const set = await createPolicySet(org.owner.api, org.name);
    for (const [path, body] of [
      ['policies', ids('policies', [mine.id, foreignPolicy.id])],
      ['policies', ids('policies', ['pol-doesnotexist0000'])],
      ['workspaces', ids('workspaces', [foreignWs.id])],
      ['projects', ids('projects', [foreignPrj.id])],
      ['workspace-exclusions', ids('workspaces', ['ws-doesnotexist00000'])],
    ] as const) {
      const res = await org.owner.api.post(`/policy-sets/${set.id}/relationships/${path}`, body);
      expect(res.status, path).toBe(422);
      expect(res.body.errors[0]).toMatchObject({
        title: 'invalid attribute',
        detail: expect.stringContaining('not found'),
        source: { pointer: '/data' },
      });
    }
    expect(await show(set.id)).toEqual(set);
  });

  it('rejects wrong element types and malformed bodies with 422', async () => {
    const set = await createPolicySet(org.owner.api, org.name);
    for (const [path, body, pointer] of [
      ['policies', ids('workspaces', ['ws-1']), '/data/0/type'],
      ['projects', ids('workspaces', ['ws-1']), '/data/0/type'],
      ['workspaces', ids('projects', ['prj-1']), '/data/0/type'],
      ['workspace-exclusions', ids('projects', ['prj-1']), '/data/0/type'],
      ['workspaces', { data: { type: 'workspaces', id: 'ws-1' } }, '/data'],
      ['workspaces', undefined, '/data'],
    ] as const) {
      const res = await org.owner.api.post(`/policy-sets/${set.id}/relationships/${path}`, body);
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(422);
      expect(res.body.errors[0].source.pointer).toBe(pointer);
    }
  });

  it('answers 404 for an unknown set, also when the body is malformed', async () => {
    for (const path of ['policies', 'projects', 'workspaces', 'workspace-exclusions']) {
      expect(
        (await org.owner.api.post(`/policy-sets/polset-doesnotexist00/relationships/${path}`, { data: [] }))
          .status,
      ).toBe(404);
      expect(
        (
          await org.owner.api.delete(`/policy-sets/polset-doesnotexist00/relationships/${path}`, {
            data: 'x',
          })
        ).status,
      ).toBe(404);
    }
  });
});

describe('deletions elsewhere drop references (admin-orgs events)', () => {
  it('deleting an attached or excluded workspace succeeds and the set forgets it', async () => {
    const [attached, excluded, kept] = [
      await createWorkspace(org.owner.api, org.name),
      await createWorkspace(org.owner.api, org.name),
      await createWorkspace(org.owner.api, org.name),
    ];
    const set = await createPolicySet(
      org.owner.api,
      org.name,
      {},
      {
        workspaces: [attached.id, kept.id],
        'workspace-exclusions': [excluded.id],
      },
    );
    expect((await org.owner.api.delete(`/workspaces/${attached.id}`)).status).toBe(204);
    expect((await org.owner.api.delete(`/workspaces/${excluded.id}`)).status).toBe(204);
    const after = await showWhen(set.id, (s) => s.relationships['workspace-exclusions']?.data.length === 0);
    expect(after.relationships.workspaces).toEqual(ids('workspaces', [kept.id]));
    expect(after.relationships['workspace-exclusions']).toEqual({ data: [] });
    expect(after.attributes['workspace-count']).toBe(1);
  });

  it('deleting an attached project succeeds and the set forgets it and its workspaces', async () => {
    const prj = await createProject(org.owner.api, org.name);
    const inProject = await createWorkspace(org.owner.api, org.name, {}, prj.id);
    const set = await createPolicySet(
      org.owner.api,
      org.name,
      {},
      { projects: [prj.id], workspaces: [inProject.id] },
    );
    expect((await org.owner.api.delete(`/projects/${prj.id}`)).status).toBe(204);
    const after = await showWhen(
      set.id,
      (s) => s.attributes['project-count'] === 0 && s.attributes['workspace-count'] === 0,
    );
    expect(after.relationships.projects).toEqual({ data: [] });
    expect(after.relationships.workspaces).toEqual({ data: [] });
    expect(after.attributes).toMatchObject({ 'project-count': 0, 'workspace-count': 0 });
  });

  it('deleting the organization removes its sets and policies', async () => {
    const doomed = await createOrganization(t, 'doomed');
    const p = await createPolicy(doomed.owner.api, doomed.name);
    const set = await createPolicySet(doomed.owner.api, doomed.name, {}, { policies: [p.id] });
    expect((await doomed.owner.api.delete(`/organizations/${doomed.name}`)).status).toBe(204);
    await waitFor(async () => (await t.admin.get(`/policy-sets/${set.id}`)).status === 404);
    expect((await t.admin.get(`/policies/${p.id}`)).status).toBe(404);
    const again = await t.admin.post('/organizations', {
      data: { type: 'organizations', attributes: { name: doomed.name, email: 'x@y.example' } },
    });
    expect(again.status).toBe(201);
    expect((await t.admin.get(`/organizations/${doomed.name}/policy-sets`)).body.data).toEqual([]);
  });
});
