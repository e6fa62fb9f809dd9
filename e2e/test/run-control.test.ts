import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, createOrganization, createWorkspace } from './support/fixtures.js';
import {
  claimCheck,
  createRun,
  guardedWorkspace,
  type InternalRunsApi,
  internalRunsApi,
  planJson,
} from './support/runs.js';
import { startTestSystem, type TestSystem } from './support/system.js';

let t: TestSystem;
let internal: InternalRunsApi;
let org: Awaited<ReturnType<typeof createOrganization>>;
beforeAll(async () => {
  t = await startTestSystem();
  internal = internalRunsApi(t);
  org = await createOrganization(t, 'ctl');
});
afterAll(async () => {
  internal?.close();
  await t?.stop();
});

// biome-ignore lint/suspicious/noExplicitAny: JSON:API documents as the tests read them.
type Run = { id: string; attributes: Record<string, any>; relationships: Record<string, any> };
const show = async (id: string): Promise<Run> => (await org.owner.api.get(`/runs/${id}`)).body.data;
const act = (id: string, action: string, body?: unknown, api = org.owner.api) =>
  api.post(`/runs/${id}/actions/${action}`, body);

/** A run in each state the actions care about. */
async function pendingRun() {
  const ws = await createWorkspace(org.owner.api, org.name);
  return createRun(org.owner.api, ws.id);
}
async function plannedRun() {
  const run = await pendingRun();
  await internal.executor.ReportPlanFinished({ runId: run.id, planJson: planJson(['aws_instance']) });
  return show(run.id);
}
async function checkingRun(level: 'soft-mandatory' | 'advisory' = 'soft-mandatory') {
  const name = `p-${Math.random().toString(36).slice(2, 8)}`;
  const g = await guardedWorkspace(org.owner.api, org.name, [{ name, level }]);
  const run = await createRun(org.owner.api, g.workspace.id);
  await internal.executor.ReportPlanFinished({ runId: run.id, planJson: planJson(['aws_s3_bucket']) });
  const shown = await show(run.id);
  return {
    run: shown,
    checkId: shown.relationships['policy-checks'].data[0].id as string,
    setId: g.set.id,
    name,
  };
}
async function decidedRun(passed: boolean) {
  const c = await checkingRun();
  const lease = await claimCheck(internal, c.checkId);
  await internal.evaluator.CompletePolicyCheck({
    policyCheckId: c.checkId,
    leaseToken: lease.leaseToken,
    outcomes: [{ policySetId: c.setId, policyName: c.name, passed }],
    durationMs: 1,
    engineDetailsJson: '{}',
  });
  return { run: await show(c.run.id), checkId: c.checkId };
}

const actions = (r: Run) => ({
  cancel: r.attributes.actions['is-cancelable'],
  discard: r.attributes.actions['is-discardable'],
  force: r.attributes.actions['is-force-cancelable'],
});

describe('run actions: cancel', () => {
  it('cancels a pending run (202): canceled, its plan canceled, an event with the actor and comment', async () => {
    const run = await pendingRun();
    expect(actions(await show(run.id))).toEqual({ cancel: true, discard: true, force: false });
    const res = await act(run.id, 'cancel', { comment: 'wrong branch' });
    expect(res.status, res.text).toBe(202);
    expect(res.text).toBe('');
    const after = await show(run.id);
    expect(after.attributes.status).toBe('canceled');
    expect(after.attributes['status-timestamps']).toHaveProperty('canceled-at');
    expect(actions(after)).toEqual({ cancel: false, discard: false, force: false });
    const plan = await org.owner.api.get(`/plans/${after.relationships.plan.data.id}`);
    expect(plan.body.data.attributes.status).toBe('canceled');
    const events = (await org.owner.api.get(`/runs/${run.id}/run-events`)).body.data;
    expect(events.map((e: Run) => e.attributes.action)).toEqual(['created', 'canceled']);
    expect(events[1].attributes.description).toBe('wrong branch');
    expect(events[1].relationships.actor.data).toEqual({ type: 'users', id: org.owner.id });
    // The executor's plan for it arrives too late and is refused.
    await expect(
      internal.executor.ReportPlanFinished({ runId: run.id, planJson: planJson(['aws_instance']) }),
    ).rejects.toThrow(/canceled/);
  });

  it('cancels a run whose policy check is still queued: the check is canceled, no evaluator can decide it', async () => {
    const { run, checkId } = await checkingRun();
    expect(actions(run)).toEqual({ cancel: true, discard: false, force: false });
    expect((await act(run.id, 'cancel')).status).toBe(202);
    expect((await show(run.id)).attributes.status).toBe('canceled');
    expect((await org.owner.api.get(`/policy-checks/${checkId}`)).body.data.attributes.status).toBe(
      'canceled',
    );
    const claim = await internal.evaluator.ClaimPolicyCheck({ evaluatorId: 'e2e', leaseSeconds: 60 });
    expect(claim.lease?.policyCheckId).not.toBe(checkId);
  });

  it('refuses with 409 a run that is not in progress (planned, overridable, ended), changing nothing', async () => {
    const planned = await plannedRun();
    const { run: override } = await decidedRun(false);
    const canceled = await pendingRun();
    await act(canceled.id, 'cancel');
    for (const run of [planned, override, await show(canceled.id)]) {
      const res = await act(run.id, 'cancel');
      expect(res.status, run.attributes.status).toBe(409);
      expect(res.body.errors[0]).toMatchObject({ status: '409', code: 'RUNS_RUN_NOT_CANCELABLE' });
      expect((await show(run.id)).attributes.status).toBe(run.attributes.status);
    }
  });
});

describe('run actions: discard', () => {
  it('discards a run waiting for a policy decision: discarded, and its check can no longer be overridden', async () => {
    const { run, checkId } = await decidedRun(false);
    expect(run.attributes.status).toBe('policy_override');
    expect(actions(run)).toEqual({ cancel: false, discard: true, force: false });
    const res = await act(run.id, 'discard', { data: { attributes: { comment: 'not shipping this' } } });
    expect(res.status, res.text).toBe(202);
    const after = await show(run.id);
    expect(after.attributes.status).toBe('discarded');
    expect(after.attributes['status-timestamps']).toHaveProperty('discarded-at');
    const check = (await org.owner.api.get(`/policy-checks/${checkId}`)).body.data;
    expect(check.attributes).toMatchObject({ status: 'soft_failed', actions: { 'is-overridable': false } });
    const override = await org.owner.api.post(`/policy-checks/${checkId}/actions/override`);
    expect(override.status).toBe(409);
    const events = (await org.owner.api.get(`/runs/${run.id}/run-events`)).body.data;
    expect(events.at(-1).attributes).toMatchObject({ action: 'discarded', description: 'not shipping this' });
  });

  it('discards pending, planned and policy_checked runs', async () => {
    const runs = [await pendingRun(), await plannedRun(), (await decidedRun(true)).run];
    expect(runs.map((r) => r.attributes.status ?? 'pending')).toEqual([
      'pending',
      'planned',
      'policy_checked',
    ]);
    for (const run of runs) {
      expect((await act(run.id, 'discard')).status).toBe(202);
      expect((await show(run.id)).attributes.status).toBe('discarded');
    }
  });

  it('refuses with 409 a run in progress on its check, or one that ended', async () => {
    const { run: checking } = await checkingRun('advisory');
    const discarded = await pendingRun();
    await act(discarded.id, 'discard');
    for (const run of [checking, await show(discarded.id)]) {
      const res = await act(run.id, 'discard');
      expect(res.status).toBe(409);
      expect(res.body.errors[0].code).toBe('RUNS_RUN_NOT_DISCARDABLE');
      expect((await show(run.id)).attributes.status).toBe(run.attributes.status);
    }
  });
});

describe('run actions: force-cancel, access and bodies', () => {
  it('force-cancel answers 409: a cancel ends a run at once, so no run is ever force-cancelable', async () => {
    const run = await pendingRun();
    const res = await act(run.id, 'force-cancel');
    expect(res.status).toBe(409);
    expect(res.body.errors[0].code).toBe('RUNS_RUN_NOT_FORCE_CANCELABLE');
    expect((await show(run.id)).attributes.status).toBe('pending');
  });

  it('needs manage-workspaces: a reader and an outsider get 404 and nothing changes', async () => {
    const run = await pendingRun();
    const reader = await createMember(t, org, ['read-runs']);
    const outsider = (await createOrganization(t, 'ctlx')).owner;
    for (const who of [reader, outsider]) {
      for (const action of ['cancel', 'discard', 'force-cancel']) {
        expect((await act(run.id, action, undefined, who.api)).status).toBe(404);
      }
    }
    expect((await act('run-0000000000000000', 'cancel')).status).toBe(404);
    const operator = await createMember(t, org, ['manage-workspaces', 'read-runs']);
    expect((await act(run.id, 'discard', undefined, operator.api)).status).toBe(202);
    expect((await show(run.id)).attributes.status).toBe('discarded');
  });

  it('refuses a malformed comment with 422 and leaves the run as it was', async () => {
    const run = await pendingRun();
    for (const body of [{ comment: 42 }, { other: 'x' }, { comment: 'x'.repeat(10_001) }]) {
      const res = await act(run.id, 'cancel', body);
      expect(res.status, JSON.stringify(body).slice(0, 40)).toBe(422);
    }
    expect((await show(run.id)).attributes.status).toBe('pending');
  });
});
