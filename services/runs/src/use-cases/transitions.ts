import type { Queryable } from '@policyhub/db';
import { newId } from '@policyhub/errors';
import type { PolicyCheckRow } from '../db/policy-check-repository.js';
import { PolicyCheckRepository } from '../db/policy-check-repository.js';
import { type NewRunEvent, RunEventRepository } from '../db/run-event-repository.js';
import { RunRepository, type RunRow } from '../db/run-repository.js';
import { CHECK_STATUS } from '../domain/policy-check-status.js';
import { withStatusTimestamp } from '../domain/run-status.js';

/*
 * Status changes inside a caller's transaction. Lock order is always run → its checks, so
 * concurrent reports, cancellations and overrides of one run serialise without deadlocks.
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

/** Cancels the run's checks that no evaluator has decided yet. */
export async function cancelOpenChecks(tx: Queryable, runId: string): Promise<void> {
  const checks = new PolicyCheckRepository(tx);
  for (const check of await checks.openChecksForUpdate(runId)) {
    await checks.decide(check.id, {
      status: CHECK_STATUS.canceled,
      statusTimestamps: withStatusTimestamp(check.status_timestamps, CHECK_STATUS.canceled),
    });
  }
}

export const checkTimestamps = (check: PolicyCheckRow, status: string) =>
  withStatusTimestamp(check.status_timestamps, status);
