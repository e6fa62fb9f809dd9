import type { Queryable } from '@policyhub/db';
import { PolicyCheckRepository, type PolicyCheckRow } from './policy-check-repository.js';
import { RunRepository, type RunRow } from './run-repository.js';
import { TaskStageRepository, type TaskStageRow } from './task-stage-repository.js';

/*
 * Row locks for state changes of a run and its checks (docs/adr/0053-run-and-check-locks.md).
 * Every transition that reads a state and writes the next one takes its locks here, inside the
 * caller's transaction, always in the same order: the run first, then its checks (by id), then its
 * task stage and the stage's evaluations. It then
 * decides on the state it read under the lock, never on a state read before. Overrides, check
 * completions and failures, and run cancels and errors therefore serialise per run without
 * deadlocks, and none of them can land after another has ended the run.
 */

/** The check and its run, both locked (run first); undefined when the check does not exist. */
export async function lockRunAndCheck(
  tx: Queryable,
  checkId: string,
): Promise<{ run: RunRow; check: PolicyCheckRow } | undefined> {
  const { rows } = await tx.query<{ run_id: string }>('SELECT run_id FROM policy_checks WHERE id = $1', [
    checkId,
  ]);
  if (!rows[0]) return undefined;
  const run = await new RunRepository(tx).getForUpdate(rows[0].run_id);
  const check = await new PolicyCheckRepository(tx).getForUpdate(checkId);
  // A check never changes runs; both are gone if the run was deleted meanwhile.
  return run && check ? { run, check } : undefined;
}

/**
 * The run locked for a transition of its own (cancel, discard, error), with its undecided checks
 * locked after it; undefined when the run does not exist.
 */
export async function lockRunAndOpenChecks(
  tx: Queryable,
  runId: string,
): Promise<{ run: RunRow; openChecks: PolicyCheckRow[] } | undefined> {
  const run = await new RunRepository(tx).getForUpdate(runId);
  if (!run) return undefined;
  return { run, openChecks: await new PolicyCheckRepository(tx).openChecksForUpdate(runId) };
}

/**
 * The task stage and its run, both locked (run first); undefined when the stage does not exist.
 * Stage overrides and evaluation decisions take their evaluations' locks after these.
 */
export async function lockRunAndStage(
  tx: Queryable,
  stageId: string,
): Promise<{ run: RunRow; stage: TaskStageRow } | undefined> {
  const { rows } = await tx.query<{ run_id: string }>('SELECT run_id FROM task_stages WHERE id = $1', [
    stageId,
  ]);
  if (!rows[0]) return undefined;
  const run = await new RunRepository(tx).getForUpdate(rows[0].run_id);
  const stage = await new TaskStageRepository(tx).getStageForUpdate(stageId);
  return run && stage ? { run, stage } : undefined;
}
