import { conflict, notFound } from '@policyhub/errors';
import type { Principal } from '@policyhub/permissions';
import { PlanRepository } from '../db/plan-repository.js';
import { RunRepository, type RunView } from '../db/run-repository.js';
import type { Deps } from '../deps.js';
import { PLAN_STATUS } from '../domain/plan-status.js';
import {
  CREATE_RUNS,
  requirePermission,
  requirePrincipal,
  validateRunActionComment,
} from '../domain/rules.js';
import { isCancelable, isDiscardable, RUN_STATUS } from '../domain/run-status.js';
import { cancelOpenChecks, moveRun, recordRunEvent } from './transitions.js';

/**
 * A user ends a run: cancel (in progress) or discard (waiting). Both end it at once, so a run is
 * never left half-canceled and force-cancel, which upstream offers only for such runs, never
 * applies here. Controlling a run needs `manage-workspaces`, as creating one does.
 */
export class RunControlUseCases {
  private readonly runs: RunRepository;

  constructor(private readonly deps: Deps) {
    this.runs = new RunRepository(deps.db);
  }

  cancel(principal: Principal | undefined, runId: string, comment: string | undefined): Promise<RunView> {
    return this.end(principal, runId, comment, RUN_STATUS.canceled);
  }

  discard(principal: Principal | undefined, runId: string, comment: string | undefined): Promise<RunView> {
    return this.end(principal, runId, comment, RUN_STATUS.discarded);
  }

  /** Upstream's 409 for a run that is not force-cancelable, which no run here ever is. */
  async forceCancel(principal: Principal | undefined, runId: string): Promise<RunView> {
    const caller = requirePrincipal(principal);
    const run = await this.runs.getView(runId);
    if (!run) throw notFound('RUNS_RUN_NOT_FOUND');
    requirePermission(caller, run.organization, CREATE_RUNS, 'RUNS_RUN_NOT_FOUND', run.organization_id);
    throw conflict(
      'RUNS_RUN_NOT_FORCE_CANCELABLE',
      `the run is ${run.status}; only a run whose cancel is still in progress can be force-canceled, and a cancel here ends the run at once`,
    );
  }

  private async end(
    principal: Principal | undefined,
    runId: string,
    comment: string | undefined,
    status: typeof RUN_STATUS.canceled | typeof RUN_STATUS.discarded,
  ): Promise<RunView> {
    const caller = requirePrincipal(principal);
    const description = validateRunActionComment(comment?.trim() ?? '');
    await this.deps.db.transaction(async (tx) => {
      // The status is read and changed under the run's row lock: a concurrent plan report,
      // check decision, override or second action waits, then sees the new status.
      const run = await new RunRepository(tx).getForUpdate(runId);
      if (!run) throw notFound('RUNS_RUN_NOT_FOUND');
      requirePermission(caller, run.organization, CREATE_RUNS, 'RUNS_RUN_NOT_FOUND', run.organization_id);
      if (status === RUN_STATUS.canceled && !isCancelable(run.status)) {
        throw conflict(
          'RUNS_RUN_NOT_CANCELABLE',
          `the run is ${run.status}; only a pending, policy_checking or post_plan_running run can be canceled`,
        );
      }
      if (status === RUN_STATUS.discarded && !isDiscardable(run.status)) {
        throw conflict(
          'RUNS_RUN_NOT_DISCARDABLE',
          `the run is ${run.status}; only a pending, planned, policy_checked, policy_override, post_plan_awaiting_decision or post_plan_completed run can be discarded`,
        );
      }
      await cancelOpenChecks(tx, run.id);
      await moveRun(tx, run, status);
      await new PlanRepository(tx).endPending(run.id, PLAN_STATUS.canceled, new Date().toISOString());
      await recordRunEvent(tx, { runId: run.id, action: status, description, actorUserId: caller.userId });
    });
    return (await this.runs.getView(runId))!;
  }
}
