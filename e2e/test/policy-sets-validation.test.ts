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
let other: Awaited<ReturnType<typeof createOrganization>>;
beforeAll(async () => {
  t = await startTestSystem();
  org = await createOrganization(t, 'valid');
  other = await createOrganization(t, 'elsewhere');
});
afterAll(async () => {
  await t?.stop();
});

const ids = (type: string, list: string[]) => ({ data: list.map((id) => ({ type, id })) });
const VCS = { identifier: 'acme/policies', 'oauth-token-id': 'ot-1' };

async function createSet(attributes: Record<string, unknown>, relationships?: Record<string, unknown>) {
  return org.owner.api.post(`/organizations/${org.name}/policy-sets`, {
    data: {
      type: 'policy-sets',
      attributes: { name: uniqueName('v'), ...attributes },
      ...(relationships ? { relationships } : {}),
    },
  });
}

/** Asserts a 422 with exactly one error at `pointer`, and that nothing was created. */
async function expectRejected(res: Awaited<ReturnType<typeof createSet>>, pointer: string) {
  expect(res.status, res.text).toBe(422);
  expect(res.body.errors).toHaveLength(1);
  expect(res.body.errors[0]).toMatchObject({
    status: '422',
    title: 'invalid attribute',
    source: { pointer },
  });
  expect(res.body.errors[0].detail).toEqual(expect.any(String));
}

describe('policy set validation: each rule is its own 422 with a source.pointer', () => {
  it('name is required', async () => {
    const res = await org.owner.api.post(`/organizations/${org.name}/policy-sets`, {
      data: { type: 'policy-sets', attributes: { description: 'no name' } },
    });
    await expectRejected(res, '/data/attributes/name');
  });

  it('name allows only letters, numbers, - and _', async () => {
    for (const name of ['has space', 'dots.not.ok', 'slash/no', 'ünï', '']) {
      await expectRejected(await createSet({ name }), '/data/attributes/name');
    }
    expect((await createSet({ name: `Ok_name-${Date.now()}` })).status).toBe(201);
  });

  it('name is unique within the organization, on create and on rename', async () => {
    const first = await createPolicySet(org.owner.api, org.name);
    const dup = await createSet({ name: first.attributes.name });
    await expectRejected(dup, '/data/attributes/name');
    expect(dup.body.errors[0].detail).toBe('Name has already been taken');
    const second = await createPolicySet(org.owner.api, org.name);
    const rename = await org.owner.api.patch(`/policy-sets/${second.id}`, {
      data: { type: 'policy-sets', attributes: { name: first.attributes.name } },
    });
    await expectRejected(rename, '/data/attributes/name');
    await createPolicySet(other.owner.api, other.name, { name: first.attributes.name });
  });

  it('kind must be kind_a or kind_b (upstream spellings are read too: vocabulary-profiles.test.ts)', async () => {
    await expectRejected(await createSet({ kind: 'kind_c' }), '/data/attributes/kind');
    await expectRejected(await createSet({ kind: 'Sentinel' }), '/data/attributes/kind');
  });

  it('overridable on a kind_a set needs agent-enabled', async () => {
    await expectRejected(await createSet({ overridable: true }), '/data/attributes/overridable');
    expect((await createSet({ overridable: true, 'agent-enabled': true })).status).toBe(201);
    expect((await createSet({ overridable: true, kind: 'kind_b' })).status).toBe(201);
  });

  it('agent-enabled is only valid for kind_a', async () => {
    await expectRejected(
      await createSet({ kind: 'kind_b', 'agent-enabled': true }),
      '/data/attributes/agent-enabled',
    );
  });

  it('policy-tool-version on a kind_a set needs agent-enabled ("latest" counts as unset)', async () => {
    await expectRejected(
      await createSet({ 'policy-tool-version': '0.26.0' }),
      '/data/attributes/policy-tool-version',
    );
    expect((await createSet({ 'policy-tool-version': 'latest' })).status).toBe(201);
  });

  it('vcs-repo needs an identifier', async () => {
    await expectRejected(
      await createSet({ 'vcs-repo': { 'oauth-token-id': 'ot-1' } }),
      '/data/attributes/vcs-repo/identifier',
    );
  });

  it('vcs-repo identifier has the format <namespace>/<repo> or <org>/<project>/_git/<repo>', async () => {
    for (const identifier of ['no-slash', 'a/b/c', 'a/ b', '/repo', 'org/proj/git/repo']) {
      await expectRejected(
        await createSet({ 'vcs-repo': { ...VCS, identifier } }),
        '/data/attributes/vcs-repo/identifier',
      );
    }
  });

  it('vcs-repo takes oauth-token-id or github-app-installation-id, not both', async () => {
    await expectRejected(
      await createSet({ 'vcs-repo': { ...VCS, 'github-app-installation-id': 'ghain-1' } }),
      '/data/attributes/vcs-repo/github-app-installation-id',
    );
  });

  it('vcs-repo needs one of oauth-token-id and github-app-installation-id', async () => {
    await expectRejected(
      await createSet({ 'vcs-repo': { identifier: 'acme/p' } }),
      '/data/attributes/vcs-repo/oauth-token-id',
    );
  });

  it('vcs-repo values have JSON types', async () => {
    await expectRejected(
      await createSet({ 'vcs-repo': { ...VCS, 'ingress-submodules': 'yes' } }),
      '/data/attributes/vcs-repo/ingress-submodules',
    );
    await expectRejected(await createSet({ 'vcs-repo': 'acme/p' }), '/data/attributes/vcs-repo');
  });

  it('vcs-repo and the policies relationship exclude each other', async () => {
    const p = await createPolicy(org.owner.api, org.name);
    await expectRejected(
      await createSet({ 'vcs-repo': VCS }, { policies: ids('policies', [p.id]) }),
      '/data/attributes/vcs-repo',
    );
  });

  it('policies-path is only valid with vcs-repo', async () => {
    await expectRejected(await createSet({ 'policies-path': 'policies/' }), '/data/attributes/policies-path');
  });

  it('projects can only be given when global is false', async () => {
    const prj = await createProject(org.owner.api, org.name);
    await expectRejected(
      await createSet({ global: true }, { projects: ids('projects', [prj.id]) }),
      '/data/relationships/projects',
    );
  });

  it('workspaces can only be given when global is false (also for an update that keeps global)', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    await expectRejected(
      await createSet({ global: true }, { workspaces: ids('workspaces', [ws.id]) }),
      '/data/relationships/workspaces',
    );
    const global = await createPolicySet(org.owner.api, org.name, { global: true });
    const res = await org.owner.api.patch(`/policy-sets/${global.id}`, {
      data: { type: 'policy-sets', relationships: { workspaces: ids('workspaces', [ws.id]) } },
    });
    await expectRejected(res, '/data/relationships/workspaces');
  });

  it.each([
    ['policies', 'workspaces'],
    ['workspaces', 'projects'],
    ['projects', 'policies'],
    ['workspace-exclusions', 'projects'],
  ])('relationship %s elements must have the right type (not %s)', async (relationship, wrongType) => {
    const res = await createSet({}, { [relationship]: ids(wrongType, ['x-1']) });
    await expectRejected(res, `/data/relationships/${relationship}/data/0/type`);
  });

  it('referenced policies must exist in the same organization', async () => {
    const foreign = await createPolicy(other.owner.api, other.name);
    await expectRejected(
      await createSet({}, { policies: ids('policies', ['pol-doesnotexist0000']) }),
      '/data/relationships/policies',
    );
    await expectRejected(
      await createSet({}, { policies: ids('policies', [foreign.id]) }),
      '/data/relationships/policies',
    );
  });

  it('referenced policies must be of the set kind', async () => {
    const b = await createPolicy(org.owner.api, org.name, { kind: 'kind_b' });
    await expectRejected(
      await createSet({}, { policies: ids('policies', [b.id]) }),
      '/data/relationships/policies',
    );
  });

  it('referenced workspaces must exist in the same organization', async () => {
    const foreign = await createWorkspace(other.owner.api, other.name);
    await expectRejected(
      await createSet({}, { workspaces: ids('workspaces', [foreign.id]) }),
      '/data/relationships/workspaces',
    );
    await expectRejected(
      await createSet({}, { workspaces: ids('workspaces', ['ws-doesnotexist00000']) }),
      '/data/relationships/workspaces',
    );
  });

  it('referenced projects must exist in the same organization', async () => {
    const foreign = await createProject(other.owner.api, other.name);
    await expectRejected(
      await createSet({}, { projects: ids('projects', [foreign.id]) }),
      '/data/relationships/projects',
    );
  });

  it('excluded workspaces must exist in the same organization', async () => {
    await expectRejected(
      await createSet({}, { 'workspace-exclusions': ids('workspaces', ['ws-doesnotexist00000']) }),
      '/data/relationships/workspace-exclusions',
    );
  });

  it('attributes must have their JSON types', async () => {
    await expectRejected(await createSet({ global: 'true' }), '/data/attributes/global');
    await expectRejected(await createSet({ 'agent-enabled': 1 }), '/data/attributes/agent-enabled');
    await expectRejected(await createSet({ description: ['x'] }), '/data/attributes/description');
  });

  it('data.type must be policy-sets', async () => {
    const res = await org.owner.api.post(`/organizations/${org.name}/policy-sets`, {
      data: { type: 'policies', attributes: { name: 'x' } },
    });
    await expectRejected(res, '/data/type');
  });

  it('kind cannot be changed by an update', async () => {
    const set = await createPolicySet(org.owner.api, org.name);
    const res = await org.owner.api.patch(`/policy-sets/${set.id}`, {
      data: { type: 'policy-sets', attributes: { kind: 'kind_b' } },
    });
    await expectRejected(res, '/data/attributes/kind');
  });

  it('an update applies the create rules to the resulting set', async () => {
    const set = await createPolicySet(org.owner.api, org.name);
    const patch = (attributes: Record<string, unknown>) =>
      org.owner.api.patch(`/policy-sets/${set.id}`, { data: { type: 'policy-sets', attributes } });
    await expectRejected(await patch({ overridable: true }), '/data/attributes/overridable');
    await expectRejected(
      await patch({ 'policy-tool-version': '1.0.0' }),
      '/data/attributes/policy-tool-version',
    );
    await expectRejected(await patch({ 'policies-path': 'x' }), '/data/attributes/policies-path');
    await expectRejected(await patch({ name: 'bad name' }), '/data/attributes/name');
    const unchanged = await org.owner.api.get(`/policy-sets/${set.id}`);
    expect(unchanged.body.data).toEqual(set);
  });

  it('a rejected create leaves nothing behind', async () => {
    const name = uniqueName('ghost');
    await createSet({ name, overridable: true });
    const list = await org.owner.api.get(`/organizations/${org.name}/policy-sets?search%5Bname%5D=${name}`);
    expect(list.body.data).toEqual([]);
  });
});
