import type { Queryable } from '@policyhub/db';
import type { PolicySetSnapshot } from '../domain/evaluation.js';
import type { OutcomePolicy, ResultCount, SetOutcome } from '../domain/task-stages.js';
import type { LeaseRow } from './policy-check-repository.js';
import { pageWithTotal } from './paging.js';

/** What a run contributes to its stages and evaluations (organization, workspace, plan-only). */
interface RunFacts {
  organization: string;
  organization_id: string | null;
  workspace_id: string;
  plan_only: boolean;
}

export interface TaskStageRow extends RunFacts {
  id: string;
  run_id: string;
  stage: string;
  status: string;
  status_timestamps: Record<string, string>;
  policy_evaluation_ids: string[];
  created_at: string;
  updated_at: string;
}

export interface PolicyEvaluationRow extends RunFacts {
  id: string;
  task_stage_id: string;
  run_id: string;
  policy_kind: string;
  status: string;
  status_timestamps: Record<string, string>;
  workspace_name: string;
  result_count: ResultCount | null;
  overridable: boolean;
  error_message: string | null;
  attempts: number;
  lease_owner: string | null;
  lease_token: string | null;
  created_at: string;
  updated_at: string;
}

export interface PolicySetOutcomeRow extends RunFacts {
  id: string;
  policy_evaluation_id: string;
  run_id: string;
  policy_set_id: string;
  policy_set_name: string;
  policy_set_description: string | null;
  overridable: boolean | null;
  error: string | null;
  outcomes: OutcomePolicy[];
  result_count: ResultCount;
}

type Page = { limit: number; offset: number };

const RUN_FACTS = 'r.organization, r.organization_id, r.workspace_id, r.plan_only';

const STAGE = `
  SELECT s.*, ${RUN_FACTS},
    COALESCE((SELECT array_agg(e.id ORDER BY e.created_at, e.id) FROM policy_evaluations e
               WHERE e.task_stage_id = s.id), '{}') AS policy_evaluation_ids
    FROM task_stages s JOIN runs r ON r.id = s.run_id`;

// The snapshot of the sets is large: only the evaluator's calls read it.
const EVALUATION = `
  SELECT e.id, e.task_stage_id, e.run_id, e.policy_kind, e.status, e.status_timestamps, e.workspace_name,
         e.result_count, e.overridable, e.error_message, e.attempts, e.lease_owner, e.lease_token,
         e.created_at, e.updated_at, ${RUN_FACTS}
    FROM policy_evaluations e JOIN runs r ON r.id = e.run_id`;

const OUTCOME = `
  SELECT o.id, o.policy_evaluation_id, e.run_id, o.policy_set_id, o.policy_set_name, o.policy_set_description,
         o.overridable, o.error, o.outcomes, o.result_count, ${RUN_FACTS}
    FROM policy_set_outcomes o JOIN policy_evaluations e ON e.id = o.policy_evaluation_id
    JOIN runs r ON r.id = e.run_id`;

const withTotal = (sql: string) => sql.replace('SELECT ', 'SELECT count(*) OVER () AS total, ');

/** A filter on outcomes: a set matches when one of its policies has this status and/or level. */
export interface OutcomeFilter {
  status?: string | undefined;
  enforcementLevel?: string | undefined;
}

export class TaskStageRepository {
  constructor(private readonly db: Queryable) {}

  async insertStage(s: {
    id: string;
    runId: string;
    status: string;
    statusTimestamps: Record<string, string>;
    createdAt: string;
  }): Promise<void> {
    await this.db.query(
      `INSERT INTO task_stages (id, run_id, stage, status, status_timestamps, created_at, updated_at)
       VALUES ($1, $2, 'post_plan', $3, $4, $5, $5)`,
      [s.id, s.runId, s.status, JSON.stringify(s.statusTimestamps), s.createdAt],
    );
  }

  async insertEvaluation(e: {
    id: string;
    taskStageId: string;
    runId: string;
    policyKind: string;
    status: string;
    statusTimestamps: Record<string, string>;
    policySets: PolicySetSnapshot[];
    workspaceName: string;
    createdAt: string;
  }): Promise<void> {
    await this.db.query(
      `INSERT INTO policy_evaluations (id, task_stage_id, run_id, policy_kind, status, status_timestamps,
                                       policy_sets, workspace_name, created_at, updated_at, organization_key)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9,
               (SELECT COALESCE(organization_id, organization) FROM runs WHERE id = $3))`,
      [
        e.id,
        e.taskStageId,
        e.runId,
        e.policyKind,
        e.status,
        JSON.stringify(e.statusTimestamps),
        JSON.stringify(e.policySets),
        e.workspaceName,
        e.createdAt,
      ],
    );
  }

  // ------------------------------------------------------------------ stages

  async getStage(id: string): Promise<TaskStageRow | undefined> {
    const { rows } = await this.db.query<TaskStageRow>(`${STAGE} WHERE s.id = $1`, [id]);
    return rows[0];
  }

  async batchGetStages(ids: readonly string[]): Promise<TaskStageRow[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.db.query<TaskStageRow>(
      `${STAGE} WHERE s.id = ANY($1) ORDER BY s.created_at, s.id`,
      [[...ids]],
    );
    return rows;
  }

  async listStagesByRun(runId: string, page: Page): Promise<{ rows: TaskStageRow[]; total: number }> {
    return pageWithTotal<TaskStageRow>(
      this.db,
      `${withTotal(STAGE)} WHERE s.run_id = $1 ORDER BY s.created_at, s.id LIMIT $2 OFFSET $3`,
      [runId, page.limit, page.offset],
      'SELECT count(*)::int AS n FROM task_stages WHERE run_id = $1',
      [runId],
    );
  }

  /** The run's stage (at most one, post_plan), locked; the caller holds the run's lock. */
  async stageOfRunForUpdate(runId: string): Promise<TaskStageRow | undefined> {
    const { rows } = await this.db.query<TaskStageRow>(
      `${STAGE} WHERE s.run_id = $1 ORDER BY s.created_at DESC, s.id DESC LIMIT 1 FOR UPDATE OF s`,
      [runId],
    );
    return rows[0];
  }

  async getStageForUpdate(id: string): Promise<TaskStageRow | undefined> {
    const { rows } = await this.db.query<TaskStageRow>(`${STAGE} WHERE s.id = $1 FOR UPDATE OF s`, [id]);
    return rows[0];
  }

  async updateStage(id: string, status: string, statusTimestamps: Record<string, string>): Promise<void> {
    await this.db.query(
      'UPDATE task_stages SET status = $2, status_timestamps = $3, updated_at = now() WHERE id = $1',
      [id, status, JSON.stringify(statusTimestamps)],
    );
  }

  // ------------------------------------------------------------- evaluations

  async getEvaluation(id: string): Promise<PolicyEvaluationRow | undefined> {
    const { rows } = await this.db.query<PolicyEvaluationRow>(`${EVALUATION} WHERE e.id = $1`, [id]);
    return rows[0];
  }

  async getEvaluationForUpdate(id: string): Promise<PolicyEvaluationRow | undefined> {
    const { rows } = await this.db.query<PolicyEvaluationRow>(
      `${EVALUATION} WHERE e.id = $1 FOR UPDATE OF e`,
      [id],
    );
    return rows[0];
  }

  async batchGetEvaluations(ids: readonly string[]): Promise<PolicyEvaluationRow[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.db.query<PolicyEvaluationRow>(
      `${EVALUATION} WHERE e.id = ANY($1) ORDER BY e.created_at, e.id`,
      [[...ids]],
    );
    return rows;
  }

  async listEvaluationsByStage(
    stageId: string,
    page: Page,
  ): Promise<{ rows: PolicyEvaluationRow[]; total: number }> {
    return pageWithTotal<PolicyEvaluationRow>(
      this.db,
      `${withTotal(EVALUATION)} WHERE e.task_stage_id = $1 ORDER BY e.created_at, e.id LIMIT $2 OFFSET $3`,
      [stageId, page.limit, page.offset],
      'SELECT count(*)::int AS n FROM policy_evaluations WHERE task_stage_id = $1',
      [stageId],
    );
  }

  /** Every evaluation of the stage, locked (the caller holds the run's and the stage's locks). */
  async evaluationsOfStageForUpdate(stageId: string): Promise<PolicyEvaluationRow[]> {
    const { rows } = await this.db.query<PolicyEvaluationRow>(
      `${EVALUATION} WHERE e.task_stage_id = $1 ORDER BY e.created_at, e.id FOR UPDATE OF e`,
      [stageId],
    );
    return rows;
  }

  async policySets(id: string): Promise<PolicySetSnapshot[]> {
    const { rows } = await this.db.query<{ policy_sets: PolicySetSnapshot[] }>(
      'SELECT policy_sets FROM policy_evaluations WHERE id = $1',
      [id],
    );
    return rows[0]?.policy_sets ?? [];
  }

  /** Leases the evaluation; a first claim moves it to `running`. */
  async leaseEvaluation(
    id: string,
    owner: string,
    token: string,
    seconds: number,
    claim: { statusTimestamps: Record<string, string> } | undefined,
  ): Promise<LeaseRow> {
    const { rows } = await this.db.query<LeaseRow>(
      `UPDATE policy_evaluations
          SET lease_owner = $2, lease_token = $3, lease_expires_at = now() + make_interval(secs => $4),
              attempts = attempts + $5, status = CASE WHEN $5 = 1 THEN 'running' ELSE status END,
              status_timestamps = COALESCE($6, status_timestamps), updated_at = now()
        WHERE id = $1
        RETURNING id, lease_token, lease_expires_at, attempts`,
      [id, owner, token, seconds, claim ? 1 : 0, claim ? JSON.stringify(claim.statusTimestamps) : null],
    );
    return rows[0]!;
  }

  /** Records a decision and releases the lease. */
  async decideEvaluation(
    id: string,
    change: {
      status: string;
      statusTimestamps: Record<string, string>;
      resultCount?: ResultCount;
      overridable?: boolean;
      errorMessage?: string;
    },
  ): Promise<void> {
    await this.db.query(
      `UPDATE policy_evaluations
          SET status = $2, status_timestamps = $3, result_count = COALESCE($4, result_count),
              overridable = COALESCE($5, overridable), error_message = COALESCE($6, error_message),
              lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
        WHERE id = $1`,
      [
        id,
        change.status,
        JSON.stringify(change.statusTimestamps),
        change.resultCount ? JSON.stringify(change.resultCount) : null,
        change.overridable ?? null,
        change.errorMessage ?? null,
      ],
    );
  }

  // ---------------------------------------------------------------- outcomes

  /** One row per set, in the evaluation's order, in one statement. */
  async insertOutcomes(
    evaluationId: string,
    outcomes: ReadonlyArray<SetOutcome & { id: string }>,
  ): Promise<void> {
    if (outcomes.length === 0) return;
    await this.db.query(
      `INSERT INTO policy_set_outcomes (id, policy_evaluation_id, position, policy_set_id, policy_set_name,
                                        policy_set_description, overridable, error, outcomes, result_count)
       SELECT o.id, $1, o.position, o.policy_set_id, o.policy_set_name, o.policy_set_description, o.overridable,
              o.error, o.outcomes, o.result_count
         FROM jsonb_to_recordset($2::jsonb) AS o(id text, position int, policy_set_id text, policy_set_name text,
              policy_set_description text, overridable boolean, error text, outcomes jsonb, result_count jsonb)`,
      [
        evaluationId,
        JSON.stringify(
          outcomes.map((o, position) => ({
            id: o.id,
            position,
            policy_set_id: o.policySetId,
            policy_set_name: o.policySetName,
            policy_set_description: o.policySetDescription,
            overridable: o.overridable,
            error: o.error,
            outcomes: o.outcomes,
            result_count: o.resultCount,
          })),
        ),
      ],
    );
  }

  async getOutcome(id: string): Promise<PolicySetOutcomeRow | undefined> {
    const { rows } = await this.db.query<PolicySetOutcomeRow>(`${OUTCOME} WHERE o.id = $1`, [id]);
    return rows[0];
  }

  /**
   * One page of an evaluation's outcomes, in the evaluation's order. With filters, only sets
   * having a policy that matches one of them (each filter's status and level both, when given).
   */
  async listOutcomes(
    evaluationId: string,
    filters: readonly OutcomeFilter[],
    page: Page,
  ): Promise<{ rows: PolicySetOutcomeRow[]; total: number }> {
    const match =
      filters.length === 0
        ? 'TRUE'
        : `EXISTS (SELECT 1 FROM jsonb_array_elements(o.outcomes) p, jsonb_to_recordset($4::jsonb) AS f(status text, level text)
                    WHERE (f.status IS NULL OR p->>'status' = f.status)
                      AND (f.level IS NULL OR p->>'enforcement_level' = f.level))`;
    const params: unknown[] = [evaluationId, page.limit, page.offset];
    if (filters.length > 0)
      params.push(
        JSON.stringify(filters.map((f) => ({ status: f.status ?? null, level: f.enforcementLevel ?? null }))),
      );
    return pageWithTotal<PolicySetOutcomeRow>(
      this.db,
      `${withTotal(OUTCOME)} WHERE o.policy_evaluation_id = $1 AND ${match} ORDER BY o.position LIMIT $2 OFFSET $3`,
      params,
      `SELECT count(*)::int AS n FROM policy_set_outcomes o WHERE o.policy_evaluation_id = $1 AND ${match.replace('$4', '$2')}`,
      filters.length > 0 ? [evaluationId, params[3]] : [evaluationId],
    );
  }
}
