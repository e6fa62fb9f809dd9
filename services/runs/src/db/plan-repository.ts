import type { Queryable } from '@policyhub/db';
import type { PlanSummary } from '../domain/plan-document.js';

export interface PlanRow {
  id: string;
  run_id: string;
  organization: string;
  organization_id: string | null;
  status: string;
  status_timestamps: Record<string, string>;
  has_changes: boolean;
  resource_additions: number;
  resource_changes: number;
  resource_destructions: number;
  resource_imports: number;
  size_bytes: string | null;
  has_json_output: boolean;
  created_at: string;
  updated_at: string;
}

const SELECT = `
  SELECT p.id, p.run_id, r.organization, r.organization_id, p.status, p.status_timestamps, p.has_changes,
         p.resource_additions, p.resource_changes, p.resource_destructions, p.resource_imports,
         p.size_bytes, r.plan_object_key IS NOT NULL AS has_json_output, p.created_at, p.updated_at
    FROM plans p JOIN runs r ON r.id = p.run_id`;

export class PlanRepository {
  constructor(private readonly db: Queryable) {}

  async insert(plan: {
    id: string;
    runId: string;
    statusTimestamps: Record<string, string>;
    createdAt: string;
  }) {
    await this.db.query(
      `INSERT INTO plans (id, run_id, status, status_timestamps, created_at, updated_at)
       VALUES ($1, $2, 'pending', $3, $4, $4)`,
      [plan.id, plan.runId, JSON.stringify(plan.statusTimestamps), plan.createdAt],
    );
  }

  async get(id: string): Promise<PlanRow | undefined> {
    const { rows } = await this.db.query<PlanRow>(`${SELECT} WHERE p.id = $1`, [id]);
    return rows[0];
  }

  async getByRun(runId: string, options: { forUpdate?: boolean } = {}): Promise<PlanRow | undefined> {
    const { rows } = await this.db.query<PlanRow>(
      `${SELECT} WHERE p.run_id = $1${options.forUpdate ? ' FOR UPDATE OF p' : ''}`,
      [runId],
    );
    return rows[0];
  }

  /**
   * Takes the plan for one upload of its JSON: only while it is pending and nobody else holds it
   * (a hold whose writer vanished lapses at `holdMs`). False when it could not be taken.
   */
  async claim(id: string, attempt: string, holdMs: number): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `UPDATE plans SET upload_attempt = $2, upload_claimed_until = now() + make_interval(secs => $3::double precision / 1000)
        WHERE id = $1 AND status = 'pending' AND (upload_claimed_until IS NULL OR upload_claimed_until < now())`,
      [id, attempt, holdMs],
    );
    return (rowCount ?? 0) > 0;
  }

  /** Whether `attempt` still holds the plan (inside the finishing transaction). */
  async isHeldBy(id: string, attempt: string): Promise<boolean> {
    const { rows } = await this.db.query<{ n: number }>(
      `SELECT 1 AS n FROM plans WHERE id = $1 AND upload_attempt = $2 AND upload_claimed_until > now()`,
      [id, attempt],
    );
    return rows.length > 0;
  }

  async release(id: string, attempt: string): Promise<void> {
    await this.db.query(
      'UPDATE plans SET upload_attempt = NULL, upload_claimed_until = NULL WHERE id = $1 AND upload_attempt = $2',
      [id, attempt],
    );
  }

  async finish(
    id: string,
    summary: PlanSummary,
    sizeBytes: number,
    statusTimestamps: Record<string, string>,
  ): Promise<void> {
    await this.db.query(
      `UPDATE plans SET status = 'finished', status_timestamps = $2, has_changes = $3, resource_additions = $4,
              resource_changes = $5, resource_destructions = $6, resource_imports = $7, size_bytes = $8,
              upload_attempt = NULL, upload_claimed_until = NULL, updated_at = now()
        WHERE id = $1`,
      [
        id,
        JSON.stringify(statusTimestamps),
        summary.hasChanges,
        summary.resourceAdditions,
        summary.resourceChanges,
        summary.resourceDestructions,
        summary.resourceImports,
        sizeBytes,
      ],
    );
  }

  /** A run that ended before its plan arrived takes its pending plan along. */
  async endPending(runId: string, status: string, timestamp: string): Promise<void> {
    await this.db.query(
      `UPDATE plans SET status = $2, status_timestamps = status_timestamps || jsonb_build_object($2::text, $3::text),
              upload_attempt = NULL, upload_claimed_until = NULL, updated_at = now()
        WHERE run_id = $1 AND status = 'pending'`,
      [runId, status, timestamp],
    );
  }
}
