import type { Queryable } from '@policyhub/db';
import { newId } from '@policyhub/errors';
import type { PolicyCheckRow } from '../db/policy-check-repository.js';
import { PolicyCheckRepository } from '../db/policy-check-repository.js';
import { type NewRunEvent, RunEventRepository } from '../db/run-event-repository.js';
import { RunRepository, type RunRow } from '../db/run-repository.js';
import { CHECK_STATUS, type CheckStatus, runStatusAfterCheck } from '../domain/policy-check-status.js';
import { RUN_STATUS, withStatusTimestamp } from '../domain/run-status.js';
import { TaskStageRepository } from '../db/task-stage-repository.js';
import {
  EVALUATION_STATUS,
  STAGE_STATUS,
  isOpenEvaluation,
  runStatusForStage,
} from '../domain/task-stages.js';

/*
 * Status changes inside a caller's transaction, on rows locked with db/run-locks.ts (run, then
 * its checks), so concurrent reports, cancellations and overrides of one run serialise without
 * deadlocks.
 */

export async function moveRun(
  tx: Queryable,
  run: RunRow,
  status: string,
  planObjectKey?: string,
): Promise<void> {
  await new RunRepository(tx).updateStatus(
    run.id,
    status,
    withStatusTimestamp(run.status_timestamps, status),
    planObjectKey,
  );
}

export async function recordRunEvent(tx: Queryable, event: Omit<NewRunEvent, 'id'>): Promise<string> {
  const id = newId('re');
  await new RunEventRepository(tx).insert({ ...event, id });
  return id;
}

/**
 * Cancels the run's checks, and its stage's evaluations, that no evaluator has decided yet. The
 * caller holds the run's lock (db/run-locks.ts).
 */
export async function cancelOpenChecks(tx: Queryable, runId: string): Promise<void> {
  const checks = new PolicyCheckRepository(tx);
  for (const check of await checks.openChecksForUpdate(runId)) {
    await checks.decide(check.id, {
      status: CHECK_STATUS.canceled,
      statusTimestamps: withStatusTimestamp(check.status_timestamps, CHECK_STATUS.canceled),
    });
  }
  const stages = new TaskStageRepository(tx);
  const stage = await stages.stageOfRunForUpdate(runId);
  if (
    !stage ||
    ![STAGE_STATUS.pending, STAGE_STATUS.running, STAGE_STATUS.awaitingOverride].includes(
      stage.status as 'running',
    )
  )
    return;
  for (const evaluation of await stages.evaluationsOfStageForUpdate(stage.id)) {
    if (!isOpenEvaluation(evaluation.status)) continue;
    await stages.decideEvaluation(evaluation.id, {
      status: EVALUATION_STATUS.canceled,
      statusTimestamps: withStatusTimestamp(evaluation.status_timestamps, EVALUATION_STATUS.canceled),
    });
  }
  await stages.updateStage(
    stage.id,
    STAGE_STATUS.canceled,
    withStatusTimestamp(stage.status_timestamps, STAGE_STATUS.canceled),
  );
}

/**
 * The run status after its check was decided: the check's verdict, unless it lets the run go on
 * and the run has a task stage, whose status then decides (a run goes on only when both allow).
 * The caller holds the run's lock.
 */
export async function runStatusAfterCheckAndStage(
  tx: Queryable,
  run: RunRow,
  checkStatus: CheckStatus,
): Promise<string> {
  const afterCheck = runStatusAfterCheck(checkStatus, run.plan_only);
  if (afterCheck !== RUN_STATUS.policyChecked) return afterCheck;
  const stage = await new TaskStageRepository(tx).stageOfRunForUpdate(run.id);
  return stage ? runStatusForStage(stage.status, run.plan_only) : afterCheck;
}

export const checkTimestamps = (check: PolicyCheckRow, status: string) =>
  withStatusTimestamp(check.status_timestamps, status);
