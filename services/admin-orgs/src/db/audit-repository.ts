import type { Queryable } from '@policyhub/db';

export interface AuditRow {
  id: string;
  occurred_at: string;
  organization_id: string | null;
  organization: string | null;
  actor_type: string;
  actor_id: string | null;
  actor_description: string;
  resource_type: string;
  resource_id: string;
  action: string;
  outcome: string;
  /** The JSON object, as text (the wire carries it as text too). */
  meta: string;
}

export type NewAuditRow = Omit<AuditRow, 'occurred_at'> & { occurred_at: string | null };

export interface AuditQuery {
  /** Only this organization's records (its immutable id); undefined: every record. */
  organizationId?: string | undefined;
  since?: string | undefined;
  limit: number;
  offset: number;
}

const COLUMNS = `id, occurred_at, organization_id, organization, actor_type, actor_id, actor_description,
  resource_type, resource_id, action, outcome, meta::text AS meta`;

export class AuditRepository {
  constructor(private readonly db: Queryable) {}

  /** A record; an id already in the trail (a redelivered event) inserts nothing. */
  async insert(row: NewAuditRow): Promise<void> {
    await this.db.query(
      `INSERT INTO audit_trail (id, occurred_at, organization_id, organization, actor_type, actor_id,
         actor_description, resource_type, resource_id, action, outcome, meta)
       VALUES ($1, date_trunc('milliseconds', coalesce($2::timestamptz, now())), $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb)
       ON CONFLICT (id) DO NOTHING`,
      [
        row.id,
        row.occurred_at,
        row.organization_id,
        row.organization,
        row.actor_type,
        row.actor_id,
        row.actor_description,
        row.resource_type,
        row.resource_id,
        row.action,
        row.outcome,
        row.meta,
      ],
    );
  }

  /** One page, oldest first, with the count of every matching record (one statement). */
  async list(q: AuditQuery): Promise<{ rows: AuditRow[]; total: number }> {
    const { rows } = await this.db.query<AuditRow & { total: number }>(
      `SELECT ${COLUMNS}, count(*) OVER ()::int AS total FROM audit_trail
        WHERE ($1::text IS NULL OR organization_id = $1)
          AND ($2::timestamptz IS NULL OR occurred_at > $2)
        ORDER BY occurred_at, seq LIMIT $3 OFFSET $4`,
      [q.organizationId ?? null, q.since ?? null, q.limit, q.offset],
    );
    if (rows.length > 0 || q.offset === 0) {
      return { rows: rows.map(({ total: _, ...row }) => row), total: rows[0]?.total ?? 0 };
    }
    // Past the last page the window count has no row to ride on.
    const { rows: count } = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM audit_trail
        WHERE ($1::text IS NULL OR organization_id = $1) AND ($2::timestamptz IS NULL OR occurred_at > $2)`,
      [q.organizationId ?? null, q.since ?? null],
    );
    return { rows: [], total: count[0]?.n ?? 0 };
  }

  /**
   * Deletes up to `batchSize` records older than `olderThanDays`, oldest first; the number deleted.
   * Row locks only (SKIP LOCKED), so replicas sweeping at once never wait on each other.
   */
  async deleteOlderThan(olderThanDays: number, batchSize: number): Promise<number> {
    const { rowCount } = await this.db.query(
      `DELETE FROM audit_trail WHERE id IN (
         SELECT id FROM audit_trail WHERE occurred_at < now() - make_interval(days => $1)
          ORDER BY occurred_at, seq LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [olderThanDays, batchSize],
    );
    return rowCount ?? 0;
  }
}
