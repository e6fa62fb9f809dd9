import { enforcementLevel } from '@policyhub/contracts';
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
  const p = (
    await h.clients.policies.CreatePolicy(
      { organization: ORG, name, enforcementLevel: enforcementLevel.fromKnownWord(level) },
      as,
    )
  ).policy!;
  await h.clients.policies.UploadPolicyCode({ id: p.id, code: Buffer.from(code) }, as);
  return p.id;
}

async function set(name: string, attrs: Record<string, unknown>) {
  return (await h.clients.policySets.CreatePolicySet({ organization: ORG, name, ...attrs }, as)).policySet!
    .id;
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
      kindB: await set('kind-b', { kind: 'POLICY_KIND_B', global: true }),
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
    });
    expect(res.policySets.map((s) => s.name)).toEqual(['global', 'on-workspace', 'on-project', 'kind-b']);
    const global = res.policySets[0]!;
    expect(global).toMatchObject({
      id: ids.global,
      kind: 'POLICY_KIND_A',
      overridable: false,
      agentEnabled: false,
    });
    expect(global.policies).toMatchObject([
      {
        id: ids.hard,
        name: 'no-public-buckets',
        enforcementLevel: 'ENFORCEMENT_LEVEL_HARD_MANDATORY',
        code: 'main = rule { false }',
      },
      {
        id: ids.soft,
        name: 'tags-required',
        enforcementLevel: 'ENFORCEMENT_LEVEL_SOFT_MANDATORY',
        code: 'main = rule { true }',
      },
    ]);
    expect(res.policySets[2]).toMatchObject({ agentEnabled: true, overridable: true, policies: [] });
    expect(res.policySets[3]!.kind).toBe('POLICY_KIND_B');
  });

  it('filters by kind', async () => {
    const res = await h.clients.applicable.GetApplicablePolicySets({
      organization: ORG,
      organizationId: `org-id-${ORG}`,
      workspaceId: 'ws-target',
      projectId: 'prj-target',
      kind: 'POLICY_KIND_B',
    });
    expect(res.policySets.map((s) => s.name)).toEqual(['kind-b']);
  });

  it('applies project sets to every workspace of the project unless excluded', async () => {
    const res = await h.clients.applicable.GetApplicablePolicySets({
      organization: ORG,
      organizationId: `org-id-${ORG}`,
      workspaceId: 'ws-sibling',
      projectId: 'prj-target',
      kind: 'POLICY_KIND_A',
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
    });
    expect(h.service.db.queryCount - before).toBeLessThanOrEqual(2);
    expect(res.policySets.map((s) => s.name)).toEqual(['global', 'global-excluding', 'elsewhere', 'kind-b']);
    const none = await h.clients.applicable.GetApplicablePolicySets({
      organization: 'other',
      organizationId: 'org-id-other',
      workspaceId: 'ws-target',
    });
    expect(none.policySets).toEqual([]);
  });
});
