import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { managerOf, startHarness } from './support/policy-sets-harness.js';

const ORG = 'acme';
const tenancy = {
  organizations: { acme: {}, other: {} },
  workspaces: {
    'ws-target': { organization: ORG, projectId: 'prj-target' },
    'ws-sibling': { organization: ORG, projectId: 'prj-target' },
    'ws-elsewhere': { organization: ORG, projectId: 'prj-other' },
  },
  projects: { 'prj-target': { organization: ORG }, 'prj-other': { organization: ORG } },
};

let h: Awaited<ReturnType<typeof startHarness>>;
const as = { principal: managerOf(ORG) };

beforeAll(async () => {
  h = await startHarness(tenancy);
});
afterAll(async () => {
  await h?.stop();
});

async function policy(name: string, level: string, code: string) {
  const p = await h.clients.policies.CreatePolicy({ organization: ORG, name, enforcementLevel: level }, as);
  await h.clients.policies.UploadPolicyCode({ id: p.id, code: Buffer.from(code) }, as);
  return p.id;
}

async function set(name: string, attrs: Record<string, unknown>) {
  return (await h.clients.policySets.CreatePolicySet({ organization: ORG, name, ...attrs }, as)).id;
}

describe('GetApplicablePolicySets', () => {
  let ids: Record<string, string>;

  beforeAll(async () => {
    const hard = await policy('no-public-buckets', 'hard-mandatory', 'main = rule { false }');
    const soft = await policy('tags-required', 'soft-mandatory', 'main = rule { true }');
    ids = {
      global: await set('global', { global: true, policyIds: { ids: [hard, soft] } }),
      globalExcluding: await set('global-excluding', {
        global: true,
        workspaceExclusionIds: { ids: ['ws-target'] },
      }),
      onWorkspace: await set('on-workspace', { workspaceIds: { ids: ['ws-target'] } }),
      onProject: await set('on-project', {
        projectIds: { ids: ['prj-target'] },
        agentEnabled: true,
        overridable: true,
      }),
      onProjectExcluding: await set('on-project-excluding', {
        projectIds: { ids: ['prj-target'] },
        workspaceExclusionIds: { ids: ['ws-target'] },
      }),
      elsewhere: await set('elsewhere', {
        workspaceIds: { ids: ['ws-elsewhere'] },
        projectIds: { ids: ['prj-other'] },
      }),
      kindB: await set('kind-b', { kind: 'kind_b', global: true }),
      hard,
      soft,
    };
  });

  it('returns global + workspace + project sets minus exclusions, with kind and contents', async () => {
    const res = await h.clients.applicable.GetApplicablePolicySets({
      organization: ORG,
      organizationId: `org-id-${ORG}`,
      workspaceId: 'ws-target',
      projectId: 'prj-target',
      kind: '',
    });
    expect(res.policySets.map((s) => s.name)).toEqual(['global', 'on-workspace', 'on-project', 'kind-b']);
    const global = res.policySets[0]!;
    expect(global).toMatchObject({ id: ids.global, kind: 'kind_a', overridable: false, agentEnabled: false });
    expect(global.policies).toEqual([
      {
        id: ids.hard,
        name: 'no-public-buckets',
        enforcementLevel: 'hard-mandatory',
        code: 'main = rule { false }',
      },
      {
        id: ids.soft,
        name: 'tags-required',
        enforcementLevel: 'soft-mandatory',
        code: 'main = rule { true }',
      },
    ]);
    expect(res.policySets[2]).toMatchObject({ agentEnabled: true, overridable: true, policies: [] });
    expect(res.policySets[3]!.kind).toBe('kind_b');
  });

  it('filters by kind', async () => {
    const res = await h.clients.applicable.GetApplicablePolicySets({
      organization: ORG,
      organizationId: `org-id-${ORG}`,
      workspaceId: 'ws-target',
      projectId: 'prj-target',
      kind: 'kind_b',
    });
    expect(res.policySets.map((s) => s.name)).toEqual(['kind-b']);
  });

  it('applies project sets to every workspace of the project unless excluded', async () => {
    const res = await h.clients.applicable.GetApplicablePolicySets({
      organization: ORG,
      organizationId: `org-id-${ORG}`,
      workspaceId: 'ws-sibling',
      projectId: 'prj-target',
      kind: 'kind_a',
    });
    expect(res.policySets.map((s) => s.name)).toEqual([
      'global',
      'global-excluding',
      'on-project',
      'on-project-excluding',
    ]);
  });

  it('needs no principal, scopes to the organization, and costs at most two queries', async () => {
    const before = h.service.db.queryCount;
    const res = await h.clients.applicable.GetApplicablePolicySets({
      organization: ORG,
      organizationId: `org-id-${ORG}`,
      workspaceId: 'ws-elsewhere',
      projectId: 'prj-other',
      kind: '',
    });
    expect(h.service.db.queryCount - before).toBeLessThanOrEqual(2);
    expect(res.policySets.map((s) => s.name)).toEqual(['global', 'global-excluding', 'elsewhere', 'kind-b']);
    const none = await h.clients.applicable.GetApplicablePolicySets({
      organization: 'other',
      organizationId: 'org-id-other',
      workspaceId: 'ws-target',
      projectId: '',
      kind: '',
    });
    expect(none.policySets).toEqual([]);
  });
});
