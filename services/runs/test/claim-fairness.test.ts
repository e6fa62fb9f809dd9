import type { PolicySetSnapshot } from '@policyhub/runs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policySet } from './support/fakes.js';
import { owner, plan, type RunsHarness, startRunsHarness } from './support/harness.js';

/*
 * Claims rotate across organizations: a hostile organization's backlog (or its poison, which
 * keeps being handed out until decided) never holds up another organization's checks. Asserted
 * on the order of claims, not on time.
 */
describe('runs service: claims are fair across organizations', () => {
  let h: RunsHarness;
  let n = 0;
  beforeAll(async () => {
    h = await startRunsHarness();
  });
  afterAll(() => h?.stop());

  async function queuedCheck(organization: string): Promise<string> {
    const ws = h.workspaces.add(`ws-${++n}`, organization);
    h.policySets.byWorkspace.set(ws.id, [policySet(`polset-${n}`, [['a', 'hard-mandatory']])]);
    const { run } = await h.runs.CreateRun({ workspaceId: ws.id }, owner(organization));
    const planned = await h.executor.ReportPlanFinished({
      runId: run!.id,
      planJson: plan(['aws_s3_bucket']),
    });
    return planned.run!.policyCheckIds[0]!;
  }

  /** Claims until nothing is claimable; the ids in claiming order. */
  async function claimAll(): Promise<string[]> {
    const order: string[] = [];
    for (let i = 0; i < 100; i++) {
      const res = await h.evaluator.ClaimPolicyCheck({ evaluatorId: 'fairness', leaseSeconds: 600 });
      if (!res.claimed) return order;
      order.push(res.lease!.policyCheckId);
    }
    throw new Error('more claims than checks');
  }

  it("a healthy organization's checks are claimed in turn with an older hostile backlog", async () => {
    const hostile: string[] = [];
    for (let i = 0; i < 8; i++) hostile.push(await queuedCheck('hostile'));
    const healthy = [await queuedCheck('healthy'), await queuedCheck('healthy')];

    const order = await claimAll();
    expect(order).toHaveLength(10);
    // Oldest first within each organization; the organizations alternate while both have checks.
    expect(order.filter((id) => hostile.includes(id))).toEqual(hostile);
    expect(order.filter((id) => healthy.includes(id))).toEqual(healthy);
    expect(order.indexOf(healthy[0]!)).toBeLessThanOrEqual(1);
    expect(order.indexOf(healthy[1]!)).toBeLessThanOrEqual(3);
  });

  it('an organization holding fewer leases goes first: a newcomer is not stuck behind busy ones', async () => {
    // Both organizations still hold the leases of the first test; another hostile check arrives,
    // then a check of an organization holding none.
    const hostile = await queuedCheck('hostile');
    const newcomer = await queuedCheck('newcomer');
    expect(await claimAll()).toEqual([newcomer, hostile]);
  });

  it('poison that comes back after an expired lease does not jump ahead of another organization', async () => {
    const poison = await queuedCheck('poisoned');
    const first = await h.evaluator.ClaimPolicyCheck({ evaluatorId: 'crashes', leaseSeconds: 600 });
    expect(first.lease!.policyCheckId).toBe(poison);
    // The evaluator that held it crashed: its lease ran out.
    await h.service.db.query(
      "UPDATE policy_checks SET lease_expires_at = now() - interval '1 second' WHERE id = $1",
      [poison],
    );
    const other = await queuedCheck('bystander');
    expect(await claimAll()).toEqual([other, poison]);
  });
});

/** A kind_b set: runs hands it out as a policy evaluation (task stage), not in the check. */
function opaSet(id: string) {
  const set = policySet(id, [['deny_public', 'hard-mandatory']]);
  return {
    ...set,
    kind: 'kind_b',
    policies: set.policies.map((p) => ({ ...p, query: `data.terraform.${p.name}.deny` })),
  } satisfies PolicySetSnapshot;
}

/*
 * Policy evaluations share the rotation with checks: one queue, oldest first within an
 * organization, organizations in turn across both kinds of work.
 */
describe('runs service: checks and policy evaluations share one fair rotation', () => {
  let h: RunsHarness;
  let n = 0;
  beforeAll(async () => {
    h = await startRunsHarness();
  });
  afterAll(() => h?.stop());

  /** A planned run of `organization` guarded by kind_a (a check) and/or kind_b (an evaluation) sets. */
  async function queued(organization: string, kinds: { check?: boolean; evaluation?: boolean }) {
    const ws = h.workspaces.add(`ws-mixed-${++n}`, organization);
    const sets: PolicySetSnapshot[] = [];
    if (kinds.check) sets.push(policySet(`polset-a-${n}`, [['a', 'hard-mandatory']]));
    if (kinds.evaluation) sets.push(opaSet(`polset-b-${n}`));
    h.policySets.byWorkspace.set(ws.id, sets);
    const { run } = await h.runs.CreateRun({ workspaceId: ws.id }, owner(organization));
    const planned = await h.executor.ReportPlanFinished({
      runId: run!.id,
      planJson: plan(['aws_s3_bucket']),
    });
    const ids = [...planned.run!.policyCheckIds];
    for (const stageId of planned.run!.taskStageIds) {
      const { taskStage } = await h.stages.GetTaskStage({ id: stageId }, owner(organization));
      ids.push(...taskStage!.policyEvaluationIds);
    }
    return ids;
  }

  const isEvaluation = (id: string) => id.startsWith('poleval-');

  /** Claims until nothing is claimable; the ids in claiming order. */
  async function claimAll(includePolicyEvaluations = true): Promise<string[]> {
    const order: string[] = [];
    for (let i = 0; i < 100; i++) {
      const res = await h.evaluator.ClaimPolicyCheck({
        evaluatorId: 'fairness',
        leaseSeconds: 600,
        includePolicyEvaluations,
      });
      if (!res.claimed) return order;
      expect(res.lease!.policyEvaluation).toBe(isEvaluation(res.lease!.policyCheckId));
      order.push(res.lease!.policyCheckId);
    }
    throw new Error('more claims than work');
  }

  it('interleaves two organizations over mixed checks and evaluations, oldest first within each', async () => {
    const busy: string[] = [];
    busy.push(...(await queued('busy', { evaluation: true })));
    busy.push(...(await queued('busy', { check: true })));
    busy.push(...(await queued('busy', { evaluation: true })));
    busy.push(...(await queued('busy', { check: true, evaluation: true })));
    busy.push(...(await queued('busy', { evaluation: true })));
    const calm = [
      ...(await queued('calm', { check: true })),
      ...(await queued('calm', { evaluation: true })),
      ...(await queued('calm', { check: true })),
    ];
    expect(busy.filter(isEvaluation)).toHaveLength(4);
    expect(calm.filter(isEvaluation)).toHaveLength(1);

    const order = await claimAll();
    expect(order).toHaveLength(busy.length + calm.length);
    // Within an organization: its creation order, checks and evaluations alike.
    expect(order.filter((id) => busy.includes(id))).toEqual(busy);
    expect(order.filter((id) => calm.includes(id))).toEqual(calm);
    // Across organizations: turns alternate while both have work, though all of busy's is older.
    const owners = order.map((id) => (calm.includes(id) ? 'calm' : 'busy'));
    expect(owners.slice(0, 6)).toEqual(['busy', 'calm', 'busy', 'calm', 'busy', 'calm']);
  });

  it("a backlog of one organization's evaluations does not delay another organization's single check", async () => {
    const flood: string[] = [];
    for (let i = 0; i < 12; i++) flood.push(...(await queued('evaluation-flood', { evaluation: true })));
    const [single] = await queued('one-check', { check: true });
    const order = await claimAll();
    expect(order).toHaveLength(13);
    expect(order.indexOf(single!)).toBeLessThanOrEqual(1);
    expect(order.filter((id) => id !== single)).toEqual(flood);
  });

  it("a flood of one organization's checks does not starve another organization's evaluation", async () => {
    const flood: string[] = [];
    for (let i = 0; i < 12; i++) flood.push(...(await queued('check-flood', { check: true })));
    const [single] = await queued('one-evaluation', { evaluation: true });
    const order = await claimAll();
    expect(order).toHaveLength(13);
    expect(order.indexOf(single!)).toBeLessThanOrEqual(1);
    expect(order.filter((id) => id !== single)).toEqual(flood);
  });

  it('an evaluator that takes no evaluations gets only checks, in turn; the evaluations wait for one that does', async () => {
    const older = await queued('solo', { evaluation: true });
    const check = await queued('solo', { check: true });
    expect(await claimAll(false)).toEqual(check);
    expect(await claimAll(true)).toEqual(older);
  });

  it('concurrent claims hand out every check and evaluation exactly once', async () => {
    const work: string[] = [];
    for (const organization of ['race-a', 'race-b', 'race-c']) {
      work.push(...(await queued(organization, { check: true, evaluation: true })));
      work.push(...(await queued(organization, { evaluation: true })));
    }
    const claimed: string[] = [];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (;;) {
          const res = await h.evaluator.ClaimPolicyCheck({
            evaluatorId: 'racer',
            leaseSeconds: 600,
            includePolicyEvaluations: true,
          });
          if (!res.claimed) return;
          claimed.push(res.lease!.policyCheckId);
        }
      }),
    );
    expect(claimed.sort()).toEqual([...work].sort());
  });

  it('an evaluation handed out as often as allowed is errored on the next claim, and the rotation goes on', async () => {
    const [poison] = await queued('poison-evaluation', { evaluation: true });
    // As if MAX_CLAIMS evaluators had claimed it and crashed (each lease expired).
    await h.service.db.query(
      "UPDATE policy_evaluations SET status = 'running', attempts = 5, lease_expires_at = now() - interval '1 second' WHERE id = $1",
      [poison],
    );
    const [bystander] = await queued('bystander-2', { check: true });
    expect(await claimAll()).toEqual([bystander]);
    const { policyEvaluation } = await h.stages.GetPolicyEvaluation(
      { id: poison! },
      owner('poison-evaluation'),
    );
    expect(policyEvaluation!.status).toBe('POLICY_EVALUATION_STATUS_ERRORED');
  });
});
