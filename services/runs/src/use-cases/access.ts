import type { Queryable } from '@policyhub/db';
import { notFound } from '@policyhub/errors';
import type { Principal } from '@policyhub/grpc-runtime';
import { RunRepository, type RunRow } from '../db/run-repository.js';
import { READ_RUNS, requirePermission } from '../domain/rules.js';

/** The run if the caller may read it; otherwise NOT_FOUND, exactly as if it did not exist. */
export async function readableRun(
  db: Queryable,
  principal: Principal | undefined,
  runId: string,
): Promise<RunRow> {
  const run = await new RunRepository(db).get(runId);
  if (!run) throw notFound('RUNS_RUN_NOT_FOUND');
  requirePermission(principal, run.organization, READ_RUNS, 'RUNS_RUN_NOT_FOUND', run.organization_id);
  return run;
}
