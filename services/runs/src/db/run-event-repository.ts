import type { Queryable } from '@policyhub/db';
import { pageWithTotal } from './paging.js';

export interface RunEventRow {
  id: string;
  run_id: string;
  action: string;
  description: string;
  actor_user_id: string;
  comment_id: string | null;
  policy_check_id: string | null;
  task_stage_id: string | null;
  created_at: string;
  /** The run's organization, for authorization. */
  organization: string;
  organization_id: string | null;
}

export interface NewRunEvent {
  id: string;
  runId: string;
  action: string;
  description?: string;
  actorUserId?: string;
  commentId?: string;
  policyCheckId?: string;
  taskStageId?: string;
}

const SELECT = `SELECT e.*, r.organization, r.organization_id FROM run_events e JOIN runs r ON r.id = e.run_id`;

export class RunEventRepository {
  constructor(private readonly db: Queryable) {}

  async insert(e: NewRunEvent): Promise<void> {
    await this.db.query(
      // The time of writing, not of the transaction's start: events are written under the run's
      // lock, so their order is the order in which the run changed.
      `INSERT INTO run_events (id, run_id, action, description, actor_user_id, comment_id, policy_check_id,
                               task_stage_id, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, clock_timestamp())`,
      [
        e.id,
        e.runId,
        e.action,
        e.description ?? '',
        e.actorUserId ?? '',
        e.commentId ?? null,
        e.policyCheckId ?? null,
        e.taskStageId ?? null,
      ],
    );
  }

  async get(id: string): Promise<RunEventRow | undefined> {
    const { rows } = await this.db.query<RunEventRow>(`${SELECT} WHERE e.id = $1`, [id]);
    return rows[0];
  }

  /** Oldest first. */
  listByRun(runId: string, limit: number, offset: number): Promise<{ rows: RunEventRow[]; total: number }> {
    return pageWithTotal<RunEventRow>(
      this.db,
      `SELECT e.*, r.organization, r.organization_id, count(*) OVER () AS total FROM run_events e JOIN runs r ON r.id = e.run_id
        WHERE e.run_id = $1 ORDER BY e.created_at, e.id LIMIT $2 OFFSET $3`,
      [runId, limit, offset],
      'SELECT count(*)::int AS n FROM run_events WHERE run_id = $1',
      [runId],
    );
  }
}
