import { randomUUID } from 'node:crypto';
import { encodeMessage, toTimestamp } from '@policyhub/contracts';
import { type Topic, TOPICS } from '@policyhub/events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeTenancy } from './support/fake-admin-orgs.js';
import { managerOf, startHarness } from './support/policy-sets-harness.js';

const ORG = 'acme';
const tenancy: FakeTenancy = {
  organizations: { acme: {}, reborn: { id: 'org-id-reborn-1' } },
  workspaces: {
    'ws-1': { organization: ORG, projectId: 'prj-1' },
    'ws-2': { organization: ORG, projectId: 'prj-1' },
    'ws-3': { organization: ORG, projectId: 'prj-1' },
    'ws-4': { organization: ORG, projectId: 'prj-1' },
    'ws-5': { organization: ORG, projectId: 'prj-1' },
  },
  projects: { 'prj-1': { organization: ORG } },
};

let h: Awaited<ReturnType<typeof startHarness>>;
const as = { principal: managerOf(ORG) };

beforeAll(async () => {
  h = await startHarness(tenancy);
});
afterAll(async () => {
  await h?.stop();
});

/** Publishes an admin-orgs event the way the relay does; resolves once the consumer applied it. */
async function publish(topic: Topic, payload: Record<string, unknown>, eventId = randomUUID()) {
  await h.transport.publish([
    {
      topic: topic.name,
      key: 'k',
      eventId,
      payload: encodeMessage(topic.type, { eventId, occurredAt: toTimestamp(new Date()), ...payload }),
      headers: {},
    },
  ]);
  return eventId;
}

describe('admin-orgs deletions', () => {
  it('drops a deleted workspace from attachments and exclusions; replays change nothing', async () => {
    const set = (
      await h.clients.policySets.CreatePolicySet(
        {
          organization: ORG,
          name: 'ws-set',
          workspaceIds: { ids: ['ws-1', 'ws-2'] },
          workspaceExclusionIds: { ids: ['ws-1'] },
        },
        as,
      )
    ).policySet!;
    const eventId = await publish(TOPICS.workspaceDeleted, { organization: ORG, workspaceId: 'ws-1' });
    const after = (await h.clients.policySets.GetPolicySet({ id: set.id }, as)).policySet!;
    expect(after).toMatchObject({ workspaceIds: ['ws-2'], workspaceExclusionIds: [], workspaceCount: 1 });

    // The same event again (a redelivery) is recognised: applied once, nothing dead-lettered.
    await publish(TOPICS.workspaceDeleted, { organization: ORG, workspaceId: 'ws-1' }, eventId);
    const { rows } = await h.service.db.query(
      `SELECT (SELECT count(*)::int FROM processed_events WHERE event_id = $1) AS processed,
              (SELECT count(*)::int FROM dead_letters) AS dead`,
      [eventId],
    );
    expect(rows).toEqual([{ processed: 1, dead: 0 }]);
    expect((await h.clients.policySets.GetPolicySet({ id: set.id }, as)).policySet!.workspaceIds).toEqual([
      'ws-2',
    ]);
  });

  it('an attach checked just before the workspace was deleted leaves no link once the deletion is applied', async () => {
    const set = (
      await h.clients.policySets.CreatePolicySet(
        { organization: ORG, name: 'race-set', workspaceIds: { ids: ['ws-4'] } },
        as,
      )
    ).policySet!;
    // admin-orgs answers "it exists", then deletes it and policy-sets applies the deletion, all
    // before the attach writes its link.
    const deleteRightAfterTheCheck = (workspaceId: string) => {
      tenancy.afterWorkspacesRead = async (ids) => {
        if (!ids.includes(workspaceId)) return;
        tenancy.afterWorkspacesRead = undefined;
        delete tenancy.workspaces[workspaceId];
        await publish(TOPICS.workspaceDeleted, { organization: ORG, workspaceId });
      };
    };
    deleteRightAfterTheCheck('ws-3');
    await h.clients.policySets.AttachWorkspaces({ policySetId: set.id, ids: ['ws-3'] }, as);
    deleteRightAfterTheCheck('ws-5');
    await h.clients.policySets.AddWorkspaceExclusions({ policySetId: set.id, ids: ['ws-5'] }, as);
    expect((await h.clients.policySets.GetPolicySet({ id: set.id }, as)).policySet!).toMatchObject({
      workspaceIds: ['ws-4'],
      workspaceExclusionIds: [],
      workspaceCount: 1,
    });
  });

  it('drops a deleted project', async () => {
    const set = (
      await h.clients.policySets.CreatePolicySet(
        { organization: ORG, name: 'prj-set', projectIds: { ids: ['prj-1'] } },
        as,
      )
    ).policySet!;
    await publish(TOPICS.projectDeleted, { organization: ORG, projectId: 'prj-1' });
    expect((await h.clients.policySets.GetPolicySet({ id: set.id }, as)).policySet!).toMatchObject({
      projectIds: [],
      projectCount: 0,
    });
  });

  it('removes every set and policy of a deleted organization, and only those', async () => {
    const policy = (await h.clients.policies.CreatePolicy({ organization: ORG, name: 'doomed-policy' }, as))
      .policy!;
    const set = (
      await h.clients.policySets.CreatePolicySet(
        { organization: ORG, name: 'doomed-set', policyIds: { ids: [policy.id] } },
        as,
      )
    ).policySet!;
    const { rows: before } = await h.service.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM policy_sets',
    );
    expect(before[0]!.n).toBeGreaterThan(0);
    await publish(TOPICS.organizationDeleted, {
      organization: 'someone-else',
      organizationId: 'org-id-other',
    });
    expect((await h.clients.policySets.GetPolicySet({ id: set.id }, as)).policySet!.id).toBe(set.id);
    await publish(TOPICS.organizationDeleted, { organization: ORG, organizationId: 'org-id-acme' });
    await expect(h.clients.policySets.GetPolicySet({ id: set.id }, as)).rejects.toMatchObject({ code: 5 });
    await expect(h.clients.policies.GetPolicy({ id: policy.id }, as)).rejects.toMatchObject({ code: 5 });
    const { rows: left } = await h.service.db.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM policy_sets) + (SELECT count(*) FROM policies)
              + (SELECT count(*) FROM policy_set_policies) AS n`,
    );
    expect(Number(left[0]!.n)).toBe(0);
    const { rows: dead } = await h.service.db.query('SELECT * FROM dead_letters');
    expect(dead).toEqual([]);
  });

  it('keeps a re-created organization of the same name apart from the deleted one', async () => {
    const oldOwner = { principal: managerOf('reborn', 'org-id-reborn-1') };
    const oldPolicy = (await h.clients.policies.CreatePolicy({ organization: 'reborn', name: 'p' }, oldOwner))
      .policy!;
    const oldSet = (
      await h.clients.policySets.CreatePolicySet(
        { organization: 'reborn', name: 'shared-name', global: true, policyIds: { ids: [oldPolicy.id] } },
        oldOwner,
      )
    ).policySet!;
    // admin-orgs deleted "reborn" and a new organization took the name before policy-sets heard of it.
    tenancy.organizations.reborn = { id: 'org-id-reborn-2' };
    const newOwner = { principal: managerOf('reborn', 'org-id-reborn-2') };

    await expect(h.clients.policySets.GetPolicySet({ id: oldSet.id }, newOwner)).rejects.toMatchObject({
      code: 5,
    });
    await expect(h.clients.policies.GetPolicy({ id: oldPolicy.id }, newOwner)).rejects.toMatchObject({
      code: 5,
    });
    expect(
      (await h.clients.policySets.ListPolicySets({ organization: 'reborn' }, newOwner)).policySets,
    ).toEqual([]);
    expect((await h.clients.policies.ListPolicies({ organization: 'reborn' }, newOwner)).policies).toEqual(
      [],
    );
    const applicable = await h.clients.applicable.GetApplicablePolicySets({
      organization: 'reborn',
      organizationId: 'org-id-reborn-2',
      workspaceId: 'ws-new',
    });
    expect(applicable.policySets).toEqual([]);

    // The same names are free in the new organization.
    const newPolicy = (await h.clients.policies.CreatePolicy({ organization: 'reborn', name: 'p' }, newOwner))
      .policy!;
    const newSet = (
      await h.clients.policySets.CreatePolicySet(
        { organization: 'reborn', name: 'shared-name', policyIds: { ids: [newPolicy.id] } },
        newOwner,
      )
    ).policySet!;
    // The old organization's policy cannot be attached to the new one's set.
    await expect(
      h.clients.policySets.AddPolicies({ policySetId: newSet.id, ids: [oldPolicy.id] }, newOwner),
    ).rejects.toMatchObject({ code: 3 });

    // The old organization's deletion arrives late: only its own data goes.
    await publish(TOPICS.organizationDeleted, { organization: 'reborn', organizationId: 'org-id-reborn-1' });
    expect(
      (await h.clients.policySets.GetPolicySet({ id: newSet.id }, newOwner)).policySet!.policyIds,
    ).toEqual([newPolicy.id]);
    expect(
      (await h.clients.policySets.ListPolicySets({ organization: 'reborn' }, newOwner)).policySets,
    ).toHaveLength(1);
    const { rows } = await h.service.db.query('SELECT id FROM policy_sets WHERE id = $1', [oldSet.id]);
    expect(rows).toEqual([]);
  });
});
