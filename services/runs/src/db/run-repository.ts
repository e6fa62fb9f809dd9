import type { Queryable } from '@policyhub/db';
import type { RunListFilter } from '../domain/run-filter.js';
import { IN_ORGANIZATION, type OrganizationRef } from './organization-scope.js';
import { pageWithTotal } from './paging.js';

export interface RunRow {
  id: string;
  organization: string;
  /** The organization's immutable id; null for runs recorded before ids existed. */
  organization_id: string | null;
  workspace_id: string;
  message: string;
  status: string;
  status_timestamps: Record<string, string>;
  plan_only: boolean;
  is_destroy: boolean;
  plan_object_key: string | null;
  configuration_version_id: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

/** A run with the ids of its checks, comments and events (its to-many relationships). */
export interface RunView extends RunRow {
  policy_check_ids: string[];
  comment_ids: string[];
  run_event_ids: string[];
  plan_id: string;
  task_stage_ids: string[];
}

// One statement for any number of runs: the relationship ids come from correlated subqueries
// that each use the child table's (run_id, created_at, id) index.
const VIEW = `
  SELECT r.*,
    COALESCE((SELECT array_agg(c.id ORDER BY c.created_at, c.id) FROM policy_checks c WHERE c.run_id = r.id), '{}') AS policy_check_ids,
    COALESCE((SELECT array_agg(m.id ORDER BY m.created_at, m.id) FROM comments m WHERE m.run_id = r.id), '{}') AS comment_ids,
    COALESCE((SELECT array_agg(e.id ORDER BY e.created_at, e.id) FROM run_events e WHERE e.run_id = r.id), '{}') AS run_event_ids,
    (SELECT p.id FROM plans p WHERE p.run_id = r.id) AS plan_id,
    COALESCE((SELECT array_agg(s.id ORDER BY s.created_at, s.id) FROM task_stages s WHERE s.run_id = r.id), '{}') AS task_stage_ids
  FROM runs r`;
const VIEW_WITH_TOTAL = VIEW.replace('SELECT r.*,', 'SELECT r.*, count(*) OVER () AS total,');

const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export class RunRepository {
  constructor(private readonly db: Queryable) {}

  async insert(run: {
    id: string;
    organization: string;
    organizationId: string;
    workspaceId: string;
    message: string;
    status: string;
    statusTimestamps: Record<string, string>;
    planOnly: boolean;
    isDestroy: boolean;
    configurationVersionId: string | null;
    createdBy: string;
    createdAt: string;
  }): Promise<void> {
    await this.db.query(
      `INSERT INTO runs (id, organization, workspace_id, message, status, status_timestamps, plan_only, created_by,
                         created_at, updated_at, configuration_version_id, organization_id, is_destroy)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $11, $12)`,
      [
        run.id,
        run.organization,
        run.workspaceId,
        run.message,
        run.status,
        JSON.stringify(run.statusTimestamps),
        run.planOnly,
        run.createdBy,
        run.createdAt,
        run.configurationVersionId,
        // '' (a workspace answer without an id) is stored as unknown, i.e. by-name semantics.
        run.organizationId || null,
        run.isDestroy,
      ],
    );
  }

  async get(id: string): Promise<RunRow | undefined> {
    const { rows } = await this.db.query<RunRow>('SELECT * FROM runs WHERE id = $1', [id]);
    return rows[0];
  }

  /** Locks the run for a status change within the caller's transaction. */
  async getForUpdate(id: string): Promise<RunRow | undefined> {
    const { rows } = await this.db.query<RunRow>('SELECT * FROM runs WHERE id = $1 FOR UPDATE', [id]);
    return rows[0];
  }

  /** The run locked for update, or undefined when it is missing or another transaction holds it. */
  async getForUpdateUnlessLocked(id: string): Promise<RunRow | undefined> {
    const { rows } = await this.db.query<RunRow>('SELECT * FROM runs WHERE id = $1 FOR UPDATE SKIP LOCKED', [
      id,
    ]);
    return rows[0];
  }

  async getView(id: string): Promise<RunView | undefined> {
    return (await this.getViews([id]))[0];
  }

  async getViews(ids: readonly string[]): Promise<RunView[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.db.query<RunView>(
      `${VIEW} WHERE r.id = ANY($1) ORDER BY r.created_at, r.id`,
      [ids],
    );
    return rows;
  }

  /**
   * The newest run of each workspace that is not plan-only: one index probe per workspace
   * (runs_workspace), stopping at the first run that qualifies.
   */
  async currentRuns(workspaceIds: readonly string[]): Promise<RunView[]> {
    if (workspaceIds.length === 0) return [];
    const { rows } = await this.db.query<RunView>(
      `${VIEW} WHERE r.id IN (
         SELECT c.id FROM unnest($1::text[]) AS w(id)
           CROSS JOIN LATERAL (SELECT id FROM runs WHERE workspace_id = w.id AND NOT plan_only
                                ORDER BY created_at DESC, id DESC LIMIT 1) AS c)
       ORDER BY r.created_at, r.id`,
      [workspaceIds],
    );
    return rows;
  }

  /** Newest first (runs_workspace index). */
  listByWorkspace(
    workspaceId: string,
    filter: RunListFilter,
    limit: number,
    offset: number,
  ): Promise<{ rows: RunView[]; total: number }> {
    return this.listWhere('r.workspace_id = $1', [workspaceId], filter, limit, offset);
  }

  /**
   * Newest first (runs_organization_created index): the runs recorded in the organization with
   * this id, and those from before ids existed under its name.
   */
  listByOrganization(
    organization: { name: string; id: string | null },
    filter: RunListFilter,
    limit: number,
    offset: number,
  ): Promise<{ rows: RunView[]; total: number }> {
    // Without an id (a site admin outside the organization) the name decides.
    return organization.id === null
      ? this.listWhere('r.organization = $1', [organization.name], filter, limit, offset)
      : this.listWhere(
          'r.organization = $1 AND (r.organization_id = $2 OR r.organization_id IS NULL)',
          [organization.name, organization.id],
          filter,
          limit,
          offset,
        );
  }

  private listWhere(
    scope: string,
    scopeParams: unknown[],
    filter: RunListFilter,
    limit: number,
    offset: number,
  ): Promise<{ rows: RunView[]; total: number }> {
    const params = [...scopeParams];
    const where = [scope];
    const param = (value: unknown) => `$${params.push(value)}`;
    if (filter.matchesNothing) where.push('false');
    if (filter.statuses) where.push(`r.status = ANY(${param(filter.statuses)}::text[])`);
    if (filter.operations) {
      // Each run has one operation (RunOperation): plan-only first, then destroy, else plan and apply.
      const operation = `CASE WHEN r.plan_only THEN 'plan_only' WHEN r.is_destroy THEN 'destroy' ELSE 'plan_and_apply' END`;
      where.push(`${operation} = ANY(${param(filter.operations)}::text[])`);
    }
    if (filter.basic) {
      const pattern = param(`%${escapeLike(filter.basic)}%`);
      where.push(`(r.id ILIKE ${pattern} OR r.message ILIKE ${pattern})`);
    }
    const condition = where.join(' AND ');
    const countParams = [...params];
    const page = `LIMIT ${param(limit)} OFFSET ${param(offset)}`;
    return pageWithTotal<RunView>(
      this.db,
      `${VIEW_WITH_TOTAL} WHERE ${condition} ORDER BY r.created_at DESC, r.id DESC ${page}`,
      params,
      `SELECT count(*)::int AS n FROM runs r WHERE ${condition}`,
      countParams,
    );
  }

  async updateStatus(
    id: string,
    status: string,
    statusTimestamps: Record<string, string>,
    planObjectKey?: string,
  ): Promise<void> {
    await this.db.query(
      `UPDATE runs SET status = $2, status_timestamps = $3, plan_object_key = COALESCE($4, plan_object_key), updated_at = now()
        WHERE id = $1`,
      [id, status, JSON.stringify(statusTimestamps), planObjectKey ?? null],
    );
  }

  /** Deletes runs (their checks, comments and events cascade); returns what was deleted. */
  async deleteInWorkspace(workspaceId: string): Promise<Array<{ id: string; organization: string }>> {
    const { rows } = await this.db.query<{ id: string; organization: string }>(
      'DELETE FROM runs WHERE workspace_id = $1 RETURNING id, organization',
      [workspaceId],
    );
    return rows;
  }

  /**
   * Runs of a deleted organization: those recorded with its id, never those of a new organization
   * that has the name now; runs from before ids existed (no id) go by the name.
   */
  async deleteInOrganization(
    organization: OrganizationRef,
  ): Promise<Array<{ id: string; organization: string }>> {
    const { rows } = await this.db.query<{ id: string; organization: string }>(
      `DELETE FROM runs WHERE ${IN_ORGANIZATION} RETURNING id, organization`,
      [organization.id, organization.name],
    );
    return rows;
  }
}
