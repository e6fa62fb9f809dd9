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
});
