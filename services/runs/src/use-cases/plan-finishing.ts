import { randomUUID } from 'node:crypto';
import { conflict, newId, notFound } from '@policyhub/errors';
import { PlanRepository } from '../db/plan-repository.js';
import { PolicyCheckRepository } from '../db/policy-check-repository.js';
import { RunRepository, type RunRow } from '../db/run-repository.js';
import { CHECK_STATUS } from '../domain/policy-check-status.js';
import type { PlanSummary } from '../domain/plan-document.js';
import { PLAN_STATUS, PLAN_UPLOAD_HOLD_MS } from '../domain/plan-status.js';
import { RUN_STATUS, canFinishPlan, withStatusTimestamp } from '../domain/run-status.js';
import { EVALUATION_STATUS, STAGE_STATUS, partitionSets } from '../domain/task-stages.js';
import { TaskStageRepository } from '../db/task-stage-repository.js';
import { notifyChecksQueued } from '../db/queued-checks.js';
import type { Deps } from '../deps.js';
import { moveRun } from './transitions.js';

export const runStateConflict = (status: string, action: string) =>
  conflict('RUNS_RUN_STATE_CONFLICT', `the run is ${status}; ${action}`);

export const planAlreadyUploaded = () =>
  conflict(
    'RUNS_PLAN_ALREADY_UPLOADED',
    'The plan already has its JSON output; it is uploaded once per run.',
  );

export const planUploadInProgress = () =>
  conflict('RUNS_PLAN_UPLOAD_IN_PROGRESS', 'Another upload of this plan is in progress.');

/**
 * One writer of a run's plan JSON at a time (the storage key is fixed, so two writers could mix
 * their documents). Resolves the attempt id that holds the plan, or throws the conflict.
 */
export async function claimPlan(deps: Deps, planId: string): Promise<string> {
  const attempt = randomUUID();
  if (await new PlanRepository(deps.db).claim(planId, attempt, PLAN_UPLOAD_HOLD_MS)) return attempt;
  const plan = await new PlanRepository(deps.db).get(planId);
  if (!plan) throw notFound('RUNS_PLAN_NOT_FOUND');
  if (plan.status === PLAN_STATUS.finished) throw planAlreadyUploaded();
  if (plan.status !== PLAN_STATUS.pending)
    throw runStateConflict(plan.status, 'its plan can no longer arrive');
  throw planUploadInProgress();
}

export const releasePlan = (deps: Deps, planId: string, attempt: string) =>
  new PlanRepository(deps.db).release(planId, attempt).catch(() => {});

/**
 * The plan JSON is stored at `key`: in one transaction the plan becomes `finished` with its
 * counts and the run moves on (docs/policy-evaluation.md): ONE queued policy check when kind_a sets
 * outside agents apply to the workspace, ONE post_plan task stage with one queued policy
 * evaluation per kind when kind_b or agent-enabled kind_a sets apply; run → policy_checking when
 * there is a check, else post_plan_running when there is a stage, else planned. Every way a plan
 * arrives ends here.
 * A plan finished meanwhile by someone else leaves everything as it is.
 */
export async function finishPlan(
  deps: Deps,
  run: RunRow,
  input: { key: string; summary: PlanSummary; sizeBytes: number; attempt: string },
): Promise<void> {
  const workspace = await deps.workspaces.getWorkspace(run.workspace_id);
  if (!workspace) throw notFound('RUNS_WORKSPACE_NOT_FOUND');
  const { checkSets: sets, evaluationSets } = partitionSets(await deps.policySets.applicableSets(workspace));
  await deps.db.transaction(async (tx) => {
    const locked = await new RunRepository(tx).getForUpdate(run.id);
    if (!locked) throw notFound('RUNS_RUN_NOT_FOUND');
    if (locked.plan_object_key) return; // a concurrent report of the same plan won
    if (!canFinishPlan(locked.status))
      throw runStateConflict(locked.status, 'only a pending run can finish its plan');
    const plans = new PlanRepository(tx);
    const plan = await plans.getByRun(run.id, { forUpdate: true });
    if (!plan) throw notFound('RUNS_PLAN_NOT_FOUND');
    // The hold lapsed and another writer may have taken the key: this attempt must not count.
    if (!(await plans.isHeldBy(plan.id, input.attempt))) throw planUploadInProgress();
    await plans.finish(
      plan.id,
      input.summary,
      input.sizeBytes,
      withStatusTimestamp(plan.status_timestamps, PLAN_STATUS.finished),
    );
    if (sets.length === 0 && evaluationSets.size === 0) {
      await moveRun(tx, locked, RUN_STATUS.planned, input.key);
      return;
    }
    const now = new Date();
    if (sets.length > 0) {
      await new PolicyCheckRepository(tx).insert({
        id: newId('polchk'),
        runId: run.id,
        status: CHECK_STATUS.queued,
        statusTimestamps: withStatusTimestamp({}, CHECK_STATUS.queued, now),
        policySets: sets,
        createdAt: now.toISOString(),
      });
    }
    if (evaluationSets.size > 0) {
      const stages = new TaskStageRepository(tx);
      const stageId = newId('ts');
      await stages.insertStage({
        id: stageId,
        runId: run.id,
        status: STAGE_STATUS.running,
        statusTimestamps: withStatusTimestamp(
          withStatusTimestamp({}, STAGE_STATUS.pending, now),
          STAGE_STATUS.running,
          now,
        ),
        createdAt: now.toISOString(),
      });
      for (const [kind, kindSets] of evaluationSets) {
        await stages.insertEvaluation({
          id: newId('poleval'),
          taskStageId: stageId,
          runId: run.id,
          policyKind: kind,
          status: EVALUATION_STATUS.queued,
          statusTimestamps: withStatusTimestamp(
            withStatusTimestamp({}, EVALUATION_STATUS.pending, now),
            EVALUATION_STATUS.queued,
            now,
          ),
          policySets: kindSets,
          workspaceName: workspace.name ?? '',
          createdAt: now.toISOString(),
        });
      }
    }
    await moveRun(
      tx,
      locked,
      sets.length > 0 ? RUN_STATUS.policyChecking : RUN_STATUS.postPlanRunning,
      input.key,
    );
    // Wakes evaluators listening (npm start's built-in one) when this commits.
    await notifyChecksQueued(tx);
  });
}
