import { encodeMessage, toTimestamp } from '@policyhub/contracts';
import { TOPICS } from '@policyhub/events';
import { waitFor } from '@policyhub/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policySet } from './support/fakes.js';
import { owner, plan, type RunsHarness, startRunsHarness } from './support/harness.js';

describe('runs service: deletions from admin-orgs', () => {
  let h: RunsHarness;
  beforeAll(async () => {
    h = await startRunsHarness();
  });
  afterAll(() => h?.stop());

  /** A run with a plan, a check, a comment and events. */
  async function fullRun(
    workspaceId: string,
    organization: string,
    organizationId = `org-id-${organization}`,
  ) {
    h.workspaces.add(workspaceId, organization, undefined, organizationId);
    h.policySets.byWorkspace.set(workspaceId, [policySet('polset-x', [['a', 'advisory']])]);
    const as = owner(organization, undefined, organizationId);
    const { run } = await h.runs.CreateRun({ workspaceId }, as);
    await h.executor.ReportPlanFinished({ runId: run!.id, planJson: plan() });
    await h.comments.CreateComment({ runId: run!.id, body: 'hi' }, as);
    return run!.id;
  }

  const publish = (
    topic: (typeof TOPICS)[keyof typeof TOPICS],
    key: string,
    payload: Record<string, unknown>,
    eventId = randomUUID(),
  ) =>
    h.transport.publish([
      {
        topic: topic.name,
        key,
        eventId,
        payload: encodeMessage(topic.type, { eventId, occurredAt: toTimestamp(new Date()), ...payload }),
        headers: {},
      },
    ]);

  const count = async (table: string) =>
    (await h.service.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;

  it('a deleted workspace takes its runs, checks, comments, events and plan files; twice is harmless', async () => {
    const gone = await fullRun('ws-gone', 'acme');
    const kept = await fullRun('ws-kept', 'acme');
    const eventId = randomUUID();
    await publish(
      TOPICS.workspaceDeleted,
      'ws-gone',
      { organization: 'acme', workspaceId: 'ws-gone' },
      eventId,
    );
    await publish(
      TOPICS.workspaceDeleted,
      'ws-gone',
      { organization: 'acme', workspaceId: 'ws-gone' },
      eventId,
    );
    const ids = async () =>
      (await h.service.db.query<{ id: string }>('SELECT id FROM runs ORDER BY id')).rows.map((r) => r.id);
    expect(await ids()).toEqual([kept]);
    expect(await count('policy_checks')).toBe(1);
    expect(await count('comments')).toBe(1);
    await waitFor(async () => h.objects.deletedPrefixes.includes(`acme/runs/${gone}/`), 10_000, 50);
    expect(h.objects.objects.has(`acme/runs/${gone}/plan.json`)).toBe(false);
    expect(h.objects.objects.has(`acme/runs/${kept}/plan.json`)).toBe(true);
  });

  it('a deleted organization takes every run of it and nothing else', async () => {
    await fullRun('ws-a1', 'doomed');
    await fullRun('ws-a2', 'doomed');
    const survivor = await fullRun('ws-b1', 'survivor');
    await publish(TOPICS.organizationDeleted, 'org-id-doomed', {
      organization: 'doomed',
      organizationId: 'org-id-doomed',
    });
    const orgs = (
      await h.service.db.query<{ organization: string }>('SELECT DISTINCT organization FROM runs')
    ).rows.map((r) => r.organization);
    expect(orgs.sort()).toEqual(['acme', 'survivor']);
    expect((await h.runs.GetRun({ id: survivor }, owner('survivor'))).run!.id).toBe(survivor);
    expect(await count('dead_letters')).toBe(0);
  });

  it("a deleted organization's turn in the evaluators' claims goes with it; other organizations' stay", async () => {
    await fullRun('ws-turn-1', 'turned', 'org-id-turned');
    await fullRun('ws-turn-2', 'stays', 'org-id-stays');
    // Claiming records each organization's turn (its last claim).
    for (let i = 0; i < 10; i++) {
      const res = await h.evaluator.ClaimPolicyCheck({ evaluatorId: 'turns', leaseSeconds: 600 });
      if (!res.claimed) break;
    }
    const turns = async () =>
      (
        await h.service.db.query<{ organization_key: string }>(
          'SELECT organization_key FROM claim_turns ORDER BY organization_key',
        )
      ).rows.map((r) => r.organization_key);
    expect(await turns()).toEqual(expect.arrayContaining(['org-id-turned', 'org-id-stays']));
    await publish(TOPICS.organizationDeleted, 'org-id-turned', {
      organization: 'turned',
      organizationId: 'org-id-turned',
    });
    expect(await turns()).not.toContain('org-id-turned');
    expect(await turns()).toContain('org-id-stays');
  });

  it('a re-created organization of the same name neither sees nor loses runs across the deletion', async () => {
    const old = await fullRun('ws-old', 'reborn', 'org-id-reborn-1');
    // admin-orgs deleted "reborn" and a new organization took the name before runs heard of it.
    const fresh = await fullRun('ws-new', 'reborn', 'org-id-reborn-2');
    const newOwner = owner('reborn', undefined, 'org-id-reborn-2');
    await expect(h.runs.GetRun({ id: old }, newOwner)).rejects.toMatchObject({ code: 5 });
    const [oldCheck] = (await h.runs.GetRun({ id: old }, owner('reborn', undefined, 'org-id-reborn-1'))).run!
      .policyCheckIds;
    await expect(h.checks.GetPolicyCheck({ id: oldCheck! }, newOwner)).rejects.toMatchObject({ code: 5 });

    await publish(TOPICS.organizationDeleted, 'org-id-reborn-1', {
      organization: 'reborn',
      organizationId: 'org-id-reborn-1',
    });
    const left = (
      await h.service.db.query<{ id: string }>("SELECT id FROM runs WHERE organization = 'reborn'")
    ).rows;
    expect(left.map((r) => r.id)).toEqual([fresh]);
    expect((await h.runs.GetRun({ id: fresh }, newOwner)).run!.id).toBe(fresh);
  });
});
