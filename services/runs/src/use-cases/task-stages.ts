import { pageInfo, pageWindow } from '@policyhub/db';
import { conflict, notFound } from '@policyhub/errors';
import { auditActorOf } from '@policyhub/events';
import { type Principal, hasPermission } from '@policyhub/permissions';
import {
  type OutcomeFilter,
  type PolicyEvaluationRow,
  type PolicySetOutcomeRow,
  type TaskStageRow,
  TaskStageRepository,
} from '../db/task-stage-repository.js';
import { lockRunAndStage } from '../db/run-locks.js';
import {
  OVERRIDE_POLICY_CHECKS,
  READ_RUNS,
  requirePermission,
  requirePrincipal,
  validateOverrideComment,
} from '../domain/rules.js';
import { RUN_STATUS, withStatusTimestamp } from '../domain/run-status.js';
import {
  EVALUATION_STATUS,
  STAGE_STATUS,
  isStageOverridable,
  runStatusForStage,
} from '../domain/task-stages.js';
import type { Deps } from '../deps.js';
import { recordAudit } from '../events/audit.js';
import { readableRun } from './access.js';
import { moveRun, recordRunEvent } from './transitions.js';

type Page = { number?: number; size?: number } | null | undefined;

export const STAGE_NOT_OVERRIDABLE_DETAIL = 'The task stage is not awaiting an override.';

type Owned = { organization: string; organization_id: string | null };

const readable = (principal: Principal | undefined, row: Owned) =>
  hasPermission(principal, row.organization, READ_RUNS, row.organization_id);

/** Task stages, policy evaluations and policy set outcomes as users see them; stage overrides. */
export class TaskStageUseCases {
  private readonly stages: TaskStageRepository;

  constructor(private readonly deps: Deps) {
    this.stages = new TaskStageRepository(deps.db);
  }

  async getStage(principal: Principal | undefined, id: string): Promise<TaskStageRow> {
    return visible(principal, await this.stages.getStage(id), 'RUNS_TASK_STAGE_NOT_FOUND');
  }

  async batchGetStages(principal: Principal | undefined, ids: readonly string[]): Promise<TaskStageRow[]> {
    return (await this.stages.batchGetStages(ids.slice(0, 1000))).filter((s) => readable(principal, s));
  }

  async listStages(principal: Principal | undefined, runId: string, page: Page) {
    await readableRun(this.deps.db, principal, runId);
    const w = pageWindow(page ?? {});
    const { rows, total } = await this.stages.listStagesByRun(runId, { limit: w.size, offset: w.offset });
    return { stages: rows, page: pageInfo(w, total) };
  }

  async getEvaluation(principal: Principal | undefined, id: string): Promise<PolicyEvaluationRow> {
    return visible(principal, await this.stages.getEvaluation(id), 'RUNS_POLICY_EVALUATION_NOT_FOUND');
  }

  async batchGetEvaluations(principal: Principal | undefined, ids: readonly string[]) {
    return (await this.stages.batchGetEvaluations(ids.slice(0, 1000))).filter((e) => readable(principal, e));
  }

  async listEvaluations(principal: Principal | undefined, stageId: string, page: Page) {
    await this.getStage(principal, stageId);
    const w = pageWindow(page ?? {});
    const { rows, total } = await this.stages.listEvaluationsByStage(stageId, {
      limit: w.size,
      offset: w.offset,
    });
    return { evaluations: rows, page: pageInfo(w, total) };
  }

  async getOutcome(principal: Principal | undefined, id: string): Promise<PolicySetOutcomeRow> {
    return visible(principal, await this.stages.getOutcome(id), 'RUNS_POLICY_SET_OUTCOME_NOT_FOUND');
  }

  async listOutcomes(
    principal: Principal | undefined,
    evaluationId: string,
    filters: readonly OutcomeFilter[],
    page: Page,
  ) {
    await this.getEvaluation(principal, evaluationId);
    const w = pageWindow(page ?? {});
    const { rows, total } = await this.stages.listOutcomes(evaluationId, filters.slice(0, 50), {
      limit: w.size,
      offset: w.offset,
    });
    return { outcomes: rows, page: pageInfo(w, total) };
  }

  /**
   * Overrides a stage awaiting it: its failed evaluations → overridden, stage → passed, the run
   * post_plan_awaiting_decision → post_plan_completed, and a `policy-overridden` run event with
   * the actor and the justification. The run and the stage are locked and their state is checked
   * inside the lock, so two overrides (or an override and a cancellation) cannot both act.
   */
  async override(
    principal: Principal | undefined,
    id: string,
    comment: string | undefined,
  ): Promise<TaskStageRow> {
    const caller = requirePrincipal(principal);
    const found = await this.stages.getStage(id);
    if (!found) throw notFound('RUNS_TASK_STAGE_NOT_FOUND');
    requirePermission(
      caller,
      found.organization,
      OVERRIDE_POLICY_CHECKS,
      'RUNS_TASK_STAGE_NOT_FOUND',
      found.organization_id,
    );
    const justification = validateOverrideComment(comment?.trim() ?? '');
    await this.deps.db.transaction(async (tx) => {
      const locked = await lockRunAndStage(tx, id);
      if (!locked) throw notFound('RUNS_TASK_STAGE_NOT_FOUND');
      const { stage } = locked;
      if (!isStageOverridable(stage.status, stage.plan_only))
        throw conflict('RUNS_TASK_STAGE_NOT_OVERRIDABLE', STAGE_NOT_OVERRIDABLE_DETAIL);
      const stages = new TaskStageRepository(tx);
      for (const evaluation of await stages.evaluationsOfStageForUpdate(id)) {
        if (evaluation.status !== EVALUATION_STATUS.failed) continue;
        await stages.decideEvaluation(evaluation.id, {
          status: EVALUATION_STATUS.overridden,
          statusTimestamps: withStatusTimestamp(evaluation.status_timestamps, EVALUATION_STATUS.overridden),
        });
      }
      await stages.updateStage(
        id,
        STAGE_STATUS.passed,
        withStatusTimestamp(stage.status_timestamps, STAGE_STATUS.passed),
      );
      const { run } = locked;
      if (run.status === RUN_STATUS.postPlanAwaitingDecision)
        await moveRun(tx, run, runStatusForStage(STAGE_STATUS.passed, run.plan_only));
      await recordRunEvent(tx, {
        runId: run.id,
        action: 'policy-overridden',
        description: justification,
        actorUserId: caller.userId,
        taskStageId: id,
      });
      await recordAudit(tx, {
        organization: { name: run.organization, id: run.organization_id },
        actor: auditActorOf(caller),
        resource: { type: 'task_stage', id, action: 'override' },
        meta: { run_id: run.id, comment: justification || undefined },
      });
    });
    return (await this.stages.getStage(id))!;
  }
}

function visible<T extends Owned>(
  principal: Principal | undefined,
  row: T | undefined,
  code:
    | 'RUNS_TASK_STAGE_NOT_FOUND'
    | 'RUNS_POLICY_EVALUATION_NOT_FOUND'
    | 'RUNS_POLICY_SET_OUTCOME_NOT_FOUND',
): T {
  if (!row) throw notFound(code);
  requirePermission(principal, row.organization, READ_RUNS, code, row.organization_id);
  return row;
}
