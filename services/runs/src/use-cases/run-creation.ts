import type { Queryable } from '@policyhub/db';
import { newId } from '@policyhub/errors';
import { PlanRepository } from '../db/plan-repository.js';
import { RunRepository } from '../db/run-repository.js';
import { PLAN_STATUS } from '../domain/plan-status.js';
import { RUN_STATUS, withStatusTimestamp } from '../domain/run-status.js';
import { recordRunEvent } from './transitions.js';

export interface NewRun {
  organization: string;
  organizationId: string;
  workspaceId: string;
  message: string;
  planOnly: boolean;
  isDestroy: boolean;
  configurationVersionId: string | null;
  createdBy: string;
}

/** A pending run with its pending plan and its `created` event, inside the caller's transaction. */
export async function insertRun(tx: Queryable, run: NewRun): Promise<string> {
  const id = newId('run');
  const now = new Date();
  await new RunRepository(tx).insert({
    id,
    organization: run.organization,
    organizationId: run.organizationId,
    workspaceId: run.workspaceId,
    message: run.message,
    status: RUN_STATUS.pending,
    statusTimestamps: withStatusTimestamp({}, RUN_STATUS.pending, now),
    planOnly: run.planOnly,
    isDestroy: run.isDestroy,
    configurationVersionId: run.configurationVersionId,
    createdBy: run.createdBy,
    createdAt: now.toISOString(),
  });
  await new PlanRepository(tx).insert({
    id: newId('plan'),
    runId: id,
    statusTimestamps: withStatusTimestamp({}, PLAN_STATUS.pending, now),
    createdAt: now.toISOString(),
  });
  await recordRunEvent(tx, { runId: id, action: 'created', actorUserId: run.createdBy });
  return id;
}
