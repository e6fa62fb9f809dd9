import * as grpc from '@grpc/grpc-js';
import { readServiceError } from '@policyhub/grpc-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policySet } from './support/fakes.js';
import { member, owner, plan, type RunsHarness, startRunsHarness } from './support/harness.js';

/*
 * A run and its check change state under one lock (run, then check), with the state checked
 * inside it: an override never lands after the run's final event, and a soft failure stops
 * being overridable once the run was canceled or errored. Each race is fired many times at once;
 * the assertions are on what was recorded, not on timing.
 */
describe('runs service: run and check states cannot be raced', () => {
  let h: RunsHarness;
  let n = 0;
  beforeAll(async () => {
    h = await startRunsHarness();
  });
  afterAll(() => h?.stop());

  /** A run in policy_override: its check soft-failed. */
  async function softFailedRun() {
    const ws = h.workspaces.add(`ws-${++n}`, 'acme');
    h.policySets.byWorkspace.set(ws.id, [policySet(`polset-${n}`, [['a', 'soft-mandatory']])]);
    const { run } = await h.runs.CreateRun({ workspaceId: ws.id }, owner('acme'));
    const planned = await h.executor.ReportPlanFinished({
      runId: run!.id,
      planJson: plan(['aws_s3_bucket']),
    });
    const checkId = planned.run!.policyCheckIds[0]!;
    let lease: { leaseToken: string } | undefined;
    for (let i = 0; i < 50 && !lease; i++) {
      const res = await h.evaluator.ClaimPolicyCheck({ evaluatorId: 'races', leaseSeconds: 600 });
      if (res.lease?.policyCheckId === checkId) lease = res.lease;
    }
    await h.evaluator.CompletePolicyCheck({
      policyCheckId: checkId,
      leaseToken: lease!.leaseToken,
      outcomes: [{ policySetId: `polset-${n}`, policyName: 'a', passed: false }],
      durationMs: 1,
    });
    return { runId: run!.id, checkId };
  }

  const overrider = (i: number) => member('acme', ['manage-policy-overrides', 'read-runs'], `user-${i}`);

  /** The run's event actions in recorded order. */
  const actions = async (runId: string) =>
    (await h.runs.ListRunEvents({ runId }, owner('acme'))).runEvents.map((e) => e.action);

  for (const [ending, action] of [
    ['canceled', 'RUN_EVENT_ACTION_CANCELED'],
    ['errored', 'RUN_EVENT_ACTION_ERRORED'],
  ] as const) {
    it(`no override lands after the run was ${ending}, however they race`, async () => {
      for (let round = 0; round < 6; round++) {
        const { runId, checkId } = await softFailedRun();
        const end = () =>
          ending === 'canceled'
            ? h.executor.ReportRunCanceled({ runId })
            : h.executor.ReportRunErrored({ runId, message: 'the executor gave up' });
        const overrides = Array.from({ length: 8 }, (_, i) =>
          h.checks.OverridePolicyCheck({ id: checkId, comment: `go ${i}` }, overrider(i)),
        );
        // The end is fired in the middle of the overrides.
        const results = await Promise.allSettled([...overrides.slice(0, 4), end(), ...overrides.slice(4)]);
        const ended = results[4]!;

        const recorded = await actions(runId);
        const overridden = recorded.filter((a) => a === 'RUN_EVENT_ACTION_POLICY_OVERRIDDEN').length;
        const accepted = results.filter((r, i) => i !== 4 && r.status === 'fulfilled').length;
        expect(overridden, recorded.join(', ')).toBe(accepted);
        expect(overridden).toBeLessThanOrEqual(1);
        for (const [i, r] of results.entries()) {
          if (i === 4 || r.status === 'fulfilled') continue;
          expect(readServiceError(r.reason)).toMatchObject({
            status: grpc.status.FAILED_PRECONDITION,
            code: 'RUNS_POLICY_CHECK_NOT_OVERRIDABLE',
          });
        }
        // The run's end is its last event, and no override is recorded after it.
        expect(ended.status, recorded.join(', ')).toBe('fulfilled');
        expect(recorded.at(-1), recorded.join(', ')).toBe(action);
        expect(recorded.indexOf('RUN_EVENT_ACTION_POLICY_OVERRIDDEN')).toBeLessThan(recorded.indexOf(action));

        const { policyCheck } = await h.checks.GetPolicyCheck({ id: checkId }, owner('acme'));
        expect(policyCheck!.isOverridable).toBe(false);
        const again = await h.checks.OverridePolicyCheck({ id: checkId }, overrider(99)).then(
          () => expect.fail('an override after the end was accepted'),
          (e) => readServiceError(e),
        );
        expect(again.code).toBe('RUNS_POLICY_CHECK_NOT_OVERRIDABLE');
      }
    });
  }

  it('a soft failure is overridable while the run waits for it, and not once the run was canceled', async () => {
    const { runId, checkId } = await softFailedRun();
    expect((await h.checks.GetPolicyCheck({ id: checkId }, owner('acme'))).policyCheck!.isOverridable).toBe(
      true,
    );
    await h.executor.ReportRunCanceled({ runId });
    const { policyCheck } = await h.checks.GetPolicyCheck({ id: checkId }, owner('acme'));
    expect(policyCheck).toMatchObject({ status: 'POLICY_CHECK_STATUS_SOFT_FAILED', isOverridable: false });
    const listed = await h.checks.ListRunPolicyChecks({ runId }, owner('acme'));
    expect(listed.policyChecks.map((c) => c.isOverridable)).toEqual([false]);
  });
});
