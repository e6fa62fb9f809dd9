import { type commonV1, decodeMessage, type runsV1 } from '@policyhub/contracts';
import type { PolicySetSnapshot } from '@policyhub/runs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policySet } from './support/fakes.js';
import { member, owner, plan, type RunsHarness, startRunsHarness } from './support/harness.js';

/** A kind_b set of individual policies (levels as policy-sets stores them). */
function opaSet(id: string, policies: Array<[string, 'advisory' | 'hard-mandatory']>, overridable = true) {
  const set = policySet(id, policies);
  return {
    ...set,
    kind: 'kind_b',
    overridable,
    toolVersion: '0.59.0',
    policies: set.policies.map((p) => ({ ...p, query: `data.terraform.${p.name}.deny` })),
  } satisfies PolicySetSnapshot;
}

describe('runs service: task stages and policy evaluations', () => {
  let h: RunsHarness;
  let n = 0;
  beforeAll(async () => {
    h = await startRunsHarness();
  });
  afterAll(() => h?.stop());

  async function plannedRun(sets: PolicySetSnapshot[], planOnly = false) {
    const ws = h.workspaces.add(`ws-stage-${++n}`, 'acme');
    h.policySets.byWorkspace.set(ws.id, sets);
    const { run } = await h.runs.CreateRun({ workspaceId: ws.id, planOnly }, owner('acme'));
    const planned = await h.executor.ReportPlanFinished({
      runId: run!.id,
      planJson: plan(['aws_s3_bucket']),
    });
    return planned.run!;
  }

  it('gives a run guarded only by kind_b sets one post_plan stage with one evaluation for both sets', async () => {
    const run = await plannedRun([
      opaSet('ps-b1', [['a', 'hard-mandatory']]),
      opaSet('ps-b2', [['b', 'advisory']]),
    ]);
    expect(run.status).toBe('RUN_STATUS_POST_PLAN_RUNNING');
    expect(run.policyCheckIds).toEqual([]);
    expect(run.taskStageIds).toHaveLength(1);
    const { taskStage } = await h.stages.GetTaskStage({ id: run.taskStageIds[0]! }, owner('acme'));
    expect(taskStage).toMatchObject({
      stage: 'post_plan',
      status: 'TASK_STAGE_STATUS_RUNNING',
      runId: run.id,
    });
    expect(taskStage!.policyEvaluationIds).toHaveLength(1);
    const { policyEvaluation } = await h.stages.GetPolicyEvaluation(
      { id: taskStage!.policyEvaluationIds[0]! },
      owner('acme'),
    );
    expect(policyEvaluation).toMatchObject({
      policyKind: 'EVALUATION_POLICY_KIND_B',
      status: 'POLICY_EVALUATION_STATUS_QUEUED',
    });
  });

  it('keeps kind_a sets outside agents in the check and puts agent-enabled ones in the stage, one evaluation per kind', async () => {
    const agent = { ...policySet('ps-agent', [['s', 'soft-mandatory']]), agentEnabled: true };
    const run = await plannedRun([
      policySet('ps-a', [['c', 'hard-mandatory']]),
      agent,
      opaSet('ps-b3', [['d', 'advisory']]),
    ]);
    expect(run.status).toBe('RUN_STATUS_POLICY_CHECKING');
    expect(run.policyCheckIds).toHaveLength(1);
    const { taskStages } = await h.stages.ListRunTaskStages({ runId: run.id }, owner('acme'));
    const { policyEvaluations } = await h.stages.ListTaskStagePolicyEvaluations(
      { taskStageId: taskStages[0]!.id },
      owner('acme'),
    );
    expect(policyEvaluations.map((e) => e.policyKind).sort()).toEqual([
      'EVALUATION_POLICY_KIND_A',
      'EVALUATION_POLICY_KIND_B',
    ]);
  });

  it('gives agent-mode kind_a sets their parameters in the evaluation input, as checks get them; kind_b sets none', async () => {
    const agent = { ...policySet('ps-agent-params', [['s', 'soft-mandatory']]), agentEnabled: true };
    const opa = opaSet('ps-b-params', [['d', 'advisory']]);
    h.policySets.parameters.set(agent.id, [{ key: 'token', value: 'agent-secret-1', sensitive: true }]);
    h.policySets.parameters.set(opa.id, [{ key: 'ignored', value: 'x', sensitive: false }]);
    const run = await plannedRun([agent, opa]);
    const { taskStage } = await h.stages.GetTaskStage({ id: run.taskStageIds[0]! }, owner('acme'));
    const inputs = new Map<string, runsV1.GetPolicyCheckInputResponse__Output>();
    for (const evaluationId of taskStage!.policyEvaluationIds) {
      const lease = await claimEvaluation(evaluationId);
      inputs.set(
        evaluationId,
        await h.evaluator.GetPolicyCheckInput({ policyCheckId: evaluationId, leaseToken: lease.leaseToken }),
      );
      await h.evaluator.FailPolicyCheck({ policyCheckId: evaluationId, leaseToken: lease.leaseToken });
    }
    const sets = [...inputs.values()].flatMap((i) => i.policySets);
    expect(sets.find((s) => s.id === agent.id)).toMatchObject({
      parameters: { token: 'agent-secret-1' },
      sensitiveParameters: ['token'],
    });
    expect(sets.find((s) => s.id === opa.id)).toMatchObject({ parameters: {}, sensitiveParameters: [] });
    const { rows } = await h.service.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM policy_evaluations x WHERE strpos(x::text, $1) > 0',
      ['agent-secret-1'],
    );
    expect(rows[0]!.n).toBe(0);
  });

  it('creates no stage when only kind_a sets outside agents apply, and hides stages from outsiders', async () => {
    const run = await plannedRun([policySet('ps-a2', [['c', 'advisory']])]);
    expect(run.taskStageIds).toEqual([]);
    const other = await plannedRun([opaSet('ps-b4', [['e', 'advisory']])]);
    const outsider = member('globex', ['read-runs']);
    await expect(h.stages.GetTaskStage({ id: other.taskStageIds[0]! }, outsider)).rejects.toThrow(
      /NOT_FOUND/,
    );
    await expect(h.stages.ListRunTaskStages({ runId: other.id }, outsider)).rejects.toThrow(/NOT_FOUND/);
  });

  /** Claims work until `evaluationId` (an evaluation or a check) comes up; others are failed out of the way. */
  async function claimEvaluation(evaluationId: string) {
    for (let i = 0; i < 50; i++) {
      const res = await h.evaluator.ClaimPolicyCheck({
        evaluatorId: 'test',
        leaseSeconds: 60,
        includePolicyEvaluations: true,
      });
      if (!res.claimed) break;
      if (res.lease!.policyCheckId === evaluationId) return res.lease!;
      await h.evaluator.FailPolicyCheck({
        policyCheckId: res.lease!.policyCheckId,
        leaseToken: res.lease!.leaseToken,
      });
    }
    throw new Error(`${evaluationId} was not claimable`);
  }

  it('records a destroy run and tells the evaluator so, for its check and its evaluation', async () => {
    const ws = h.workspaces.add(`ws-stage-${++n}`, 'acme');
    h.policySets.byWorkspace.set(ws.id, [
      policySet('ps-destroy-a', [['c', 'hard-mandatory']]),
      opaSet('ps-destroy-b', [['d', 'advisory']]),
    ]);
    const created = (await h.runs.CreateRun({ workspaceId: ws.id, isDestroy: true }, owner('acme'))).run!;
    expect(created.isDestroy).toBe(true);
    const planned = (
      await h.executor.ReportPlanFinished({ runId: created.id, planJson: plan(['aws_s3_bucket']) })
    ).run!;
    expect((await h.runs.GetRun({ id: created.id }, owner('acme'))).run!.isDestroy).toBe(true);
    const { taskStage } = await h.stages.GetTaskStage({ id: planned.taskStageIds[0]! }, owner('acme'));
    for (const id of [planned.policyCheckIds[0]!, taskStage!.policyEvaluationIds[0]!]) {
      const lease = await claimEvaluation(id);
      const input = await h.evaluator.GetPolicyCheckInput({
        policyCheckId: id,
        leaseToken: lease.leaseToken,
      });
      expect(input.run).toMatchObject({ isDestroy: true, planOnly: false });
      await h.evaluator.FailPolicyCheck({ policyCheckId: id, leaseToken: lease.leaseToken });
    }
    const plain = await plannedRun([opaSet('ps-plain-b', [['e', 'advisory']])]);
    expect(plain.isDestroy).toBe(false);
    const plainStage = (await h.stages.GetTaskStage({ id: plain.taskStageIds[0]! }, owner('acme')))
      .taskStage!;
    const evaluationId = plainStage.policyEvaluationIds[0]!;
    const lease = await claimEvaluation(evaluationId);
    const input = await h.evaluator.GetPolicyCheckInput({
      policyCheckId: evaluationId,
      leaseToken: lease.leaseToken,
    });
    expect(input.run!.isDestroy).toBe(false);
    await h.evaluator.FailPolicyCheck({ policyCheckId: evaluationId, leaseToken: lease.leaseToken });
  });

  type Result = 'passed' | 'failed' | 'errored';
  async function evaluated(
    sets: PolicySetSnapshot[],
    results: Array<[set: string, policy: string, Result]>,
    planOnly = false,
  ) {
    const run = await plannedRun(sets, planOnly);
    const { taskStage } = await h.stages.GetTaskStage({ id: run.taskStageIds[0]! }, owner('acme'));
    const evaluationId = taskStage!.policyEvaluationIds[0]!;
    const lease = await claimEvaluation(evaluationId);
    expect(lease.policyEvaluation).toBe(true);
    const input = await h.evaluator.GetPolicyCheckInput({
      policyCheckId: evaluationId,
      leaseToken: lease.leaseToken,
    });
    const done = await h.evaluator.CompletePolicyCheck({
      policyCheckId: evaluationId,
      leaseToken: lease.leaseToken,
      outcomes: results.map(([policySetId, policyName, result]) => ({
        policySetId,
        policyName,
        passed: result === 'passed',
        result: `EVALUATION_POLICY_RESULT_${result.toUpperCase()}` as 'EVALUATION_POLICY_RESULT_PASSED',
        output: result === 'passed' ? [] : [`${policyName} says no`],
      })),
      durationMs: 5,
    });
    const stage = (await h.stages.GetTaskStage({ id: taskStage!.id }, owner('acme'))).taskStage!;
    const after = (await h.runs.GetRun({ id: run.id }, owner('acme'))).run!;
    return { run: after, stage, evaluationId, input, done };
  }

  it('sends an evaluation its sets with queries, the mandatory level and the tool version', async () => {
    const { input, done, stage, run } = await evaluated(
      [
        opaSet('ps-in', [
          ['a', 'hard-mandatory'],
          ['b', 'advisory'],
        ]),
      ],
      [
        ['ps-in', 'a', 'passed'],
        ['ps-in', 'b', 'failed'],
      ],
    );
    expect(input.policySets[0]).toMatchObject({
      kind: 'EVALUATION_POLICY_KIND_B',
      policyToolVersion: '0.59.0',
      policies: [
        {
          name: 'a',
          enforcementLevel: 'EVALUATION_ENFORCEMENT_LEVEL_MANDATORY',
          query: 'data.terraform.a.deny',
        },
        { name: 'b', enforcementLevel: 'EVALUATION_ENFORCEMENT_LEVEL_ADVISORY' },
      ],
    });
    expect(done.evaluationStatus).toBe('passed');
    expect(stage.status).toBe('TASK_STAGE_STATUS_PASSED');
    expect(run.status).toBe('RUN_STATUS_POST_PLAN_COMPLETED');
  });

  it('waits for an override after a mandatory failure in an overridable set; the override lets the run go on', async () => {
    const { stage, run, evaluationId } = await evaluated(
      [opaSet('ps-ov', [['m', 'hard-mandatory']])],
      [['ps-ov', 'm', 'failed']],
    );
    expect(stage.status).toBe('TASK_STAGE_STATUS_AWAITING_OVERRIDE');
    expect(stage.isOverridable).toBe(true);
    expect(run.status).toBe('RUN_STATUS_POST_PLAN_AWAITING_DECISION');
    const { policySetOutcomes } = await h.stages.ListPolicySetOutcomes(
      { policyEvaluationId: evaluationId, filters: [{ status: 'failed', enforcementLevel: 'mandatory' }] },
      owner('acme'),
    );
    expect(policySetOutcomes[0]).toMatchObject({
      policySetName: 'set-ps-ov',
      outcomes: [{ policyName: 'm', status: 'failed', enforcementLevel: 'mandatory', output: ['m says no'] }],
      resultCount: { mandatoryFailed: 1, passed: 0 },
    });
    const none = await h.stages.ListPolicySetOutcomes(
      { policyEvaluationId: evaluationId, filters: [{ status: 'passed' }] },
      owner('acme'),
    );
    expect(none.policySetOutcomes).toEqual([]);
    const reader = member('acme', ['read-runs']);
    await expect(h.stages.OverrideTaskStage({ id: stage.id }, reader)).rejects.toThrow(/NOT_FOUND/);
    const { taskStage } = await h.stages.OverrideTaskStage(
      { id: stage.id, comment: 'approved by CAB' },
      owner('acme'),
    );
    expect(taskStage!.status).toBe('TASK_STAGE_STATUS_PASSED');
    await expect(h.stages.OverrideTaskStage({ id: stage.id }, owner('acme'))).rejects.toThrow(
      /not awaiting an override/,
    );
    const after = (await h.runs.GetRun({ id: run.id }, owner('acme'))).run!;
    expect(after.status).toBe('RUN_STATUS_POST_PLAN_COMPLETED');
    const { policyEvaluation } = await h.stages.GetPolicyEvaluation({ id: evaluationId }, owner('acme'));
    expect(policyEvaluation!.status).toBe('POLICY_EVALUATION_STATUS_OVERRIDDEN');
    const events = await h.runs.ListRunEvents({ runId: run.id }, owner('acme'));
    expect(events.runEvents.at(-1)).toMatchObject({
      action: 'RUN_EVENT_ACTION_POLICY_OVERRIDDEN',
      description: 'approved by CAB',
      actorUserId: 'user-owner',
      taskStageId: stage.id,
    });
    // The audit trail's record, written to the outbox in the override's transaction.
    const { rows } = await h.service.db.query<{ payload: Buffer }>(
      `SELECT payload FROM outbox WHERE topic = 'runs.audit-recorded' AND key = $1`,
      [stage.id],
    );
    expect(
      rows.map(
        (r) =>
          decodeMessage<commonV1.AuditRecorded__Output>('policyhub.common.v1.AuditRecorded', r.payload)
            .record,
      ),
    ).toEqual([
      expect.objectContaining({
        resourceType: 'task_stage',
        resourceId: stage.id,
        action: 'override',
        actorId: 'user-owner',
        organization: 'acme',
        metaJson: JSON.stringify({ run_id: run.id, comment: 'approved by CAB' }),
      }),
    ]);
  });

  it('stops the run after a mandatory failure in a set that does not allow overrides, or an errored policy', async () => {
    const failed = await evaluated(
      [opaSet('ps-no', [['m', 'hard-mandatory']], false)],
      [['ps-no', 'm', 'failed']],
    );
    expect(failed.stage.status).toBe('TASK_STAGE_STATUS_FAILED');
    expect(failed.run.status).toBe('RUN_STATUS_ERRORED');
    const errored = await evaluated([opaSet('ps-err', [['x', 'advisory']])], [['ps-err', 'x', 'errored']]);
    expect(errored.stage.status).toBe('TASK_STAGE_STATUS_ERRORED');
    expect(errored.run.status).toBe('RUN_STATUS_ERRORED');
  });

  it('errors an evaluation whose outcomes miss a policy, and one the evaluator fails', async () => {
    const missing = await evaluated(
      [
        opaSet('ps-miss', [
          ['a', 'advisory'],
          ['b', 'advisory'],
        ]),
      ],
      [['ps-miss', 'a', 'passed']],
    );
    expect(missing.done.evaluationStatus).toBe('errored');
    expect(missing.run.status).toBe('RUN_STATUS_ERRORED');
    const { policySetOutcomes } = await h.stages.ListPolicySetOutcomes(
      { policyEvaluationId: missing.evaluationId },
      owner('acme'),
    );
    expect(policySetOutcomes[0]!.error).toMatch(/no outcome for set-ps-miss\/b/);

    const run = await plannedRun([opaSet('ps-fail', [['a', 'advisory']])]);
    const { taskStage } = await h.stages.GetTaskStage({ id: run.taskStageIds[0]! }, owner('acme'));
    const lease = await claimEvaluation(taskStage!.policyEvaluationIds[0]!);
    await h.evaluator.FailPolicyCheck({
      policyCheckId: lease.policyCheckId,
      leaseToken: lease.leaseToken,
      errorMessage: 'no policy engine for kind_b (OPA) policy sets',
    });
    expect((await h.runs.GetRun({ id: run.id }, owner('acme'))).run!.status).toBe('RUN_STATUS_ERRORED');
  });

  it('lets a run with a check and a stage go on only when both allow it', async () => {
    const run = await plannedRun([
      policySet('ps-both-a', [['c', 'advisory']]),
      opaSet('ps-both-b', [['d', 'advisory']]),
    ]);
    expect(run.status).toBe('RUN_STATUS_POLICY_CHECKING');
    // Checks are handed out first: take this run's check now, complete it last.
    const checkLease = await claimEvaluation(run.policyCheckIds[0]!);
    const { taskStage } = await h.stages.GetTaskStage({ id: run.taskStageIds[0]! }, owner('acme'));
    const lease = await claimEvaluation(taskStage!.policyEvaluationIds[0]!);
    await h.evaluator.CompletePolicyCheck({
      policyCheckId: lease.policyCheckId,
      leaseToken: lease.leaseToken,
      outcomes: [
        {
          policySetId: 'ps-both-b',
          policyName: 'd',
          passed: true,
          result: 'EVALUATION_POLICY_RESULT_PASSED',
        },
      ],
    });
    // The stage passed, but the check is still queued: the run waits for it.
    expect((await h.runs.GetRun({ id: run.id }, owner('acme'))).run!.status).toBe(
      'RUN_STATUS_POLICY_CHECKING',
    );
    await h.evaluator.CompletePolicyCheck({
      policyCheckId: checkLease.policyCheckId,
      leaseToken: checkLease.leaseToken,
      outcomes: [{ policySetId: 'ps-both-a', policyName: 'c', passed: true }],
    });
    expect((await h.runs.GetRun({ id: run.id }, owner('acme'))).run!.status).toBe(
      'RUN_STATUS_POST_PLAN_COMPLETED',
    );
  });

  it('does not hand evaluations to evaluators that do not take them', async () => {
    await plannedRun([opaSet('ps-old', [['a', 'advisory']])]);
    const res = await h.evaluator.ClaimPolicyCheck({ evaluatorId: 'old', leaseSeconds: 60 });
    expect(res.lease?.policyEvaluation ?? false).toBe(false);
  });
});
