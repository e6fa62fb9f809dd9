import type { Queryable } from '@policyhub/db';
import type { CheckResult } from '../domain/aggregation.js';
import type { PolicySetSnapshot } from '../domain/evaluation.js';
import { pageWithTotal } from './paging.js';

/** A policy check with what its run contributes (organization, workspace, plan-only). */
export interface PolicyCheckRow {
  id: string;
  run_id: string;
  scope: string;
  status: string;
  status_timestamps: Record<string, string>;
  result: CheckResult | null;
  has_output: boolean;
  override_comment: string | null;
  error_message: string | null;
  attempts: number;
  lease_owner: string | null;
  lease_token: string | null;
  created_at: string;
  updated_at: string;
  organization: string;
  organization_id: string | null;
  workspace_id: string;
  plan_only: boolean;
  /** The run's status: whether a soft failure may still be overridden depends on it. */
  run_status: string;
}

export interface LeaseRow {
  id: string;
  lease_token: string;
  lease_expires_at: string;
  attempts: number;
}

// The evaluator's input and the report are large: only the calls that need them read them.
const SELECT = `
  SELECT c.id, c.run_id, c.scope, c.status, c.status_timestamps, c.result, (c.output IS NOT NULL) AS has_output,
         c.override_comment, c.error_message, c.attempts, c.lease_owner, c.lease_token, c.created_at, c.updated_at,
         r.organization, r.organization_id, r.workspace_id, r.plan_only, r.status AS run_status
    FROM policy_checks c JOIN runs r ON r.id = c.run_id`;
const SELECT_WITH_TOTAL = SELECT.replace('r.plan_only,', 'r.plan_only, count(*) OVER () AS total,');

export class PolicyCheckRepository {
  constructor(private readonly db: Queryable) {}

  async insert(c: {
    id: string;
    runId: string;
    status: string;
    statusTimestamps: Record<string, string>;
    policySets: PolicySetSnapshot[];
    createdAt: string;
  }): Promise<void> {
    await this.db.query(
      `INSERT INTO policy_checks (id, run_id, scope, status, status_timestamps, policy_sets, created_at, updated_at,
                                  organization_key)
       VALUES ($1, $2, 'organization', $3, $4, $5, $6, $6,
               (SELECT COALESCE(organization_id, organization) FROM runs WHERE id = $2))`,
      [
        c.id,
        c.runId,
        c.status,
        JSON.stringify(c.statusTimestamps),
        JSON.stringify(c.policySets),
        c.createdAt,
      ],
    );
  }

  async get(id: string): Promise<PolicyCheckRow | undefined> {
    const { rows } = await this.db.query<PolicyCheckRow>(`${SELECT} WHERE c.id = $1`, [id]);
    return rows[0];
  }

  /** Locks the check (within the caller's transaction) before a status change. */
  async getForUpdate(id: string): Promise<PolicyCheckRow | undefined> {
    const { rows } = await this.db.query<PolicyCheckRow>(`${SELECT} WHERE c.id = $1 FOR UPDATE OF c`, [id]);
    return rows[0];
  }

  /** Oldest first; every check when `page` is undefined. */
  async listByRun(
    runId: string,
    page?: { limit: number; offset: number },
  ): Promise<{ rows: PolicyCheckRow[]; total: number }> {
    if (!page) {
      const { rows } = await this.db.query<PolicyCheckRow>(
        `${SELECT} WHERE c.run_id = $1 ORDER BY c.created_at, c.id`,
        [runId],
      );
      return { rows, total: rows.length };
    }
    return pageWithTotal<PolicyCheckRow>(
      this.db,
      `${SELECT_WITH_TOTAL} WHERE c.run_id = $1 ORDER BY c.created_at, c.id LIMIT $2 OFFSET $3`,
      [runId, page.limit, page.offset],
      'SELECT count(*)::int AS n FROM policy_checks WHERE run_id = $1',
      [runId],
    );
  }

  /** Checks of a run that are still waiting for an evaluator, locked. */
  async openChecksForUpdate(runId: string): Promise<PolicyCheckRow[]> {
    const { rows } = await this.db.query<PolicyCheckRow>(
      `${SELECT} WHERE c.run_id = $1 AND c.status = 'queued' ORDER BY c.id FOR UPDATE OF c`,
      [runId],
    );
    return rows;
  }

  async policySets(id: string): Promise<PolicySetSnapshot[]> {
    const { rows } = await this.db.query<{ policy_sets: PolicySetSnapshot[] }>(
      'SELECT policy_sets FROM policy_checks WHERE id = $1',
      [id],
    );
    return rows[0]?.policy_sets ?? [];
  }

  async output(id: string): Promise<string | null> {
    const { rows } = await this.db.query<{ output: string | null }>(
      'SELECT output FROM policy_checks WHERE id = $1',
      [id],
    );
    return rows[0]?.output ?? null;
  }

  async lease(
    id: string,
    owner: string,
    token: string,
    seconds: number,
    countAttempt: boolean,
  ): Promise<LeaseRow> {
    const { rows } = await this.db.query<LeaseRow>(
      `UPDATE policy_checks
          SET lease_owner = $2, lease_token = $3, lease_expires_at = now() + make_interval(secs => $4),
              attempts = attempts + $5, updated_at = now()
        WHERE id = $1
        RETURNING id, lease_token, lease_expires_at, attempts`,
      [id, owner, token, seconds, countAttempt ? 1 : 0],
    );
    return rows[0]!;
  }

  /** Records a decision (status, timestamps and whatever else is given) and releases the lease. */
  async decide(
    id: string,
    change: {
      status: string;
      statusTimestamps: Record<string, string>;
      result?: CheckResult;
      outcomes?: unknown[];
      output?: string;
      errorMessage?: string;
      overrideComment?: string;
      overriddenBy?: string;
    },
  ): Promise<void> {
    await this.db.query(
      `UPDATE policy_checks
          SET status = $2, status_timestamps = $3,
              result = COALESCE($4, result), outcomes = COALESCE($5, outcomes), output = COALESCE($6, output),
              error_message = COALESCE($7, error_message), override_comment = COALESCE($8, override_comment),
              overridden_by = COALESCE($9, overridden_by),
              lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
        WHERE id = $1`,
      [
        id,
        change.status,
        JSON.stringify(change.statusTimestamps),
        change.result ? JSON.stringify(change.result) : null,
        change.outcomes ? JSON.stringify(change.outcomes) : null,
        change.output ?? null,
        change.errorMessage ?? null,
        change.overrideComment ?? null,
        change.overriddenBy ?? null,
      ],
    );
  }
}
