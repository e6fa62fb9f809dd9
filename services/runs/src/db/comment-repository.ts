import type { Queryable } from '@policyhub/db';
import { pageWithTotal } from './paging.js';

export interface CommentRow {
  id: string;
  run_id: string;
  body: string;
  run_event_id: string;
  author_user_id: string;
  created_at: string;
  /** The run's organization, for authorization. */
  organization: string;
  organization_id: string | null;
}

const SELECT = `SELECT m.*, r.organization, r.organization_id FROM comments m JOIN runs r ON r.id = m.run_id`;

export class CommentRepository {
  constructor(private readonly db: Queryable) {}

  async insert(c: {
    id: string;
    runId: string;
    body: string;
    runEventId: string;
    authorUserId: string;
  }): Promise<void> {
    await this.db.query(
      'INSERT INTO comments (id, run_id, body, run_event_id, author_user_id) VALUES ($1, $2, $3, $4, $5)',
      [c.id, c.runId, c.body, c.runEventId, c.authorUserId],
    );
  }

  async get(id: string): Promise<CommentRow | undefined> {
    const { rows } = await this.db.query<CommentRow>(`${SELECT} WHERE m.id = $1`, [id]);
    return rows[0];
  }

  /** Oldest first. */
  listByRun(runId: string, limit: number, offset: number): Promise<{ rows: CommentRow[]; total: number }> {
    return pageWithTotal<CommentRow>(
      this.db,
      `SELECT m.*, r.organization, r.organization_id, count(*) OVER () AS total FROM comments m JOIN runs r ON r.id = m.run_id
        WHERE m.run_id = $1 ORDER BY m.created_at, m.id LIMIT $2 OFFSET $3`,
      [runId, limit, offset],
      'SELECT count(*)::int AS n FROM comments WHERE run_id = $1',
      [runId],
    );
  }
}
