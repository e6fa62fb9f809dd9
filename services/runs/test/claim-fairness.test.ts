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
