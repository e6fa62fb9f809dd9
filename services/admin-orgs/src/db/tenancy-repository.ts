import type { Queryable } from '@policyhub/db';

export interface OrganizationRow {
  name: string;
  external_id: string;
  email: string;
  is_disabled: boolean;
  access_beta_tools: boolean;
  global_module_sharing: boolean;
  global_provider_sharing: boolean;
  sso_enabled: boolean;
  worker_sudo_enabled: boolean;
  workspace_limit: number | null;
  apply_timeout: string | null;
  plan_timeout: string | null;
  is_free_tier: boolean;
  created_at: string;
  owner_ids: string[];
}

export interface TeamRow {
  id: string;
  organization: string;
  name: string;
  permissions: string[];
  visibility: 'secret' | 'organization';
  created_at: string;
  user_ids: string[];
}

export interface ProjectRow {
  id: string;
  organization: string;
  name: string;
  description: string;
  is_default: boolean;
  created_at: string;
  updated_at: string;
}

export interface WorkspaceRow {
  id: string;
  organization: string;
  /** The organization's immutable id. */
  organization_id: string;
  project_id: string;
  name: string;
  description: string;
  created_at: string;
  updated_at: string;
}

/** A workspace with its organization's immutable id (what runs records with its runs). */
const WORKSPACE_WITH_ORGANIZATION_ID = `w.*, o.external_id AS organization_id
  FROM workspaces w JOIN organizations o ON o.name = w.organization`;

/** The organization id of a `workspaces` row, for statements that select from that table alone. */
const ORGANIZATION_ID_OF_ROW = `(SELECT o.external_id FROM organizations o WHERE o.name = organization) AS organization_id`;

/** Columns of an OrganizationRow selected from `organizations o` (also used by the admin repository). */
export const ORG_COLUMNS = `o.*, coalesce((SELECT array_agg(m.user_id ORDER BY m.user_id) FROM teams t
  JOIN team_members m ON m.team_id = t.id WHERE t.organization = o.name AND t.name = 'owners'), '{}') AS owner_ids`;

const TEAM_COLUMNS = `t.*, coalesce((SELECT array_agg(m.user_id ORDER BY m.user_id) FROM team_members m
  WHERE m.team_id = t.id), '{}') AS user_ids`;

export class TenancyRepository {
  constructor(private readonly db: Queryable) {}

  // ------------------------------------------------------------ organizations

  async getOrganization(name: string): Promise<OrganizationRow | undefined> {
    const { rows } = await this.db.query<OrganizationRow>(
      `SELECT ${ORG_COLUMNS} FROM organizations o WHERE o.name = $1`,
      [name],
    );
    return rows[0];
  }

  async insertOrganization(name: string, externalId: string, email: string): Promise<void> {
    await this.db.query('INSERT INTO organizations (name, external_id, email) VALUES ($1, $2, $3)', [
      name,
      externalId,
      email,
    ]);
  }

  /** Organizations visible to a user: all for site admins, else those they are a member of. */
  async listOrganizations(
    userId: string | null,
    limit: number,
    offset: number,
  ): Promise<{ rows: OrganizationRow[]; total: number }> {
    const filter = userId
      ? `WHERE EXISTS (SELECT 1 FROM teams t JOIN team_members m ON m.team_id = t.id
                         WHERE t.organization = o.name AND m.user_id = $3) AND NOT o.is_disabled`
      : '';
    const params = userId ? [limit, offset, userId] : [limit, offset];
    const { rows } = await this.db.query<OrganizationRow & { total: number }>(
      `SELECT ${ORG_COLUMNS}, count(*) OVER () AS total FROM organizations o ${filter}
        ORDER BY o.created_at, o.name LIMIT $1 OFFSET $2`,
      params,
    );
    const total =
      rows[0]?.total ??
      Number(
        (
          await this.db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM organizations o ${filter.replace('$3', '$1')}`,
            userId ? [userId] : [],
          )
        ).rows[0]?.n ?? 0,
      );
    return { rows, total };
  }

  async updateOrganization(name: string, fields: { name?: string; email?: string }): Promise<void> {
    await this.db.query(
      `UPDATE organizations SET name = coalesce($2, name), email = coalesce($3, email), updated_at = now() WHERE name = $1`,
      [name, fields.name ?? null, fields.email ?? null],
    );
  }

  /** Deletes the organization; its immutable id, or undefined when there was none. */
  async deleteOrganization(name: string): Promise<string | undefined> {
    const { rows } = await this.db.query<{ external_id: string }>(
      'DELETE FROM organizations WHERE name = $1 RETURNING external_id',
      [name],
    );
    return rows[0]?.external_id;
  }

  // ------------------------------------------------------------ teams

  async getTeam(id: string): Promise<TeamRow | undefined> {
    const { rows } = await this.db.query<TeamRow>(`SELECT ${TEAM_COLUMNS} FROM teams t WHERE t.id = $1`, [
      id,
    ]);
    return rows[0];
  }

  async insertTeam(
    id: string,
    organization: string,
    name: string,
    permissions: string[],
    visibility: TeamRow['visibility'] = 'secret',
  ): Promise<void> {
    await this.db.query(
      'INSERT INTO teams (id, organization, name, permissions, visibility) VALUES ($1, $2, $3, $4, $5)',
      [id, organization, name, permissions, visibility],
    );
  }

  /**
   * A page of an organization's teams, oldest first. `viewerId` (when set: a member who is not an
   * owner) keeps the teams visible to that user: `organization` teams and their own; `query` is a case-insensitive substring of the name; `names` exact names.
   */
  async listTeams(
    organization: string,
    filter: { viewerId: string | null; query: string; names: string[] },
    limit: number,
    offset: number,
  ): Promise<{ rows: TeamRow[]; total: number }> {
    const where = `t.organization = $1
       AND ($2::text IS NULL OR t.visibility = 'organization' OR EXISTS (SELECT 1 FROM team_members m WHERE m.team_id = t.id AND m.user_id = $2))
       AND ($3 = '' OR t.name ILIKE '%' || $3 || '%')
       AND (cardinality($4::text[]) = 0 OR t.name = ANY($4))`;
    const params = [organization, filter.viewerId, escapeLike(filter.query), filter.names];
    const [page, count] = await Promise.all([
      this.db.query<TeamRow>(
        `SELECT ${TEAM_COLUMNS} FROM teams t WHERE ${where} ORDER BY t.created_at, t.id LIMIT $5 OFFSET $6`,
        [...params, limit, offset],
      ),
      this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM teams t WHERE ${where}`, params),
    ]);
    return { rows: page.rows, total: count.rows[0]?.n ?? 0 };
  }

  async deleteTeam(id: string): Promise<boolean> {
    const { rowCount } = await this.db.query('DELETE FROM teams WHERE id = $1', [id]);
    return (rowCount ?? 0) > 0;
  }

  /** The ids among `ids` that name no user, in the order given. */
  async missingUsers(ids: readonly string[]): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>('SELECT id FROM users WHERE id = ANY($1)', [ids]);
    const found = new Set(rows.map((r) => r.id));
    return ids.filter((id) => !found.has(id));
  }

  /** Locks a team's row until the transaction ends (member changes that check what remains). */
  async lockTeam(id: string): Promise<void> {
    await this.db.query('SELECT 1 FROM teams WHERE id = $1 FOR UPDATE', [id]);
  }

  async addMembers(teamId: string, userIds: string[]): Promise<void> {
    await this.db.query(
      `INSERT INTO team_members (team_id, user_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`,
      [teamId, userIds],
    );
  }

  async removeMembers(teamId: string, userIds: string[]): Promise<void> {
    await this.db.query('DELETE FROM team_members WHERE team_id = $1 AND user_id = ANY($2)', [
      teamId,
      userIds,
    ]);
  }

  // ------------------------------------------------------------ projects

  async getProject(id: string): Promise<ProjectRow | undefined> {
    const { rows } = await this.db.query<ProjectRow>('SELECT * FROM projects WHERE id = $1', [id]);
    return rows[0];
  }

  async getProjects(ids: string[]): Promise<ProjectRow[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.db.query<ProjectRow>('SELECT * FROM projects WHERE id = ANY($1)', [ids]);
    return rows;
  }

  async defaultProject(organization: string): Promise<ProjectRow | undefined> {
    const { rows } = await this.db.query<ProjectRow>(
      'SELECT * FROM projects WHERE organization = $1 AND is_default',
      [organization],
    );
    return rows[0];
  }

  async insertProject(row: Omit<ProjectRow, 'created_at' | 'updated_at'>): Promise<ProjectRow> {
    const { rows } = await this.db.query<ProjectRow>(
      `INSERT INTO projects (id, organization, name, description, is_default) VALUES ($1, $2, $3, $4, $5) RETURNING *`,
      [row.id, row.organization, row.name, row.description, row.is_default],
    );
    return rows[0]!;
  }

  async listProjects(organization: string, search: string, limit: number, offset: number) {
    const { rows } = await this.db.query<ProjectRow & { total: number }>(
      `SELECT *, count(*) OVER () AS total FROM projects
        WHERE organization = $1 AND ($2 = '' OR name ILIKE '%' || $2 || '%')
        ORDER BY created_at, id LIMIT $3 OFFSET $4`,
      [organization, escapeLike(search), limit, offset],
    );
    if (rows.length > 0 || offset === 0) return { rows, total: rows[0]?.total ?? 0 };
    const count = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM projects WHERE organization = $1 AND ($2 = '' OR name ILIKE '%' || $2 || '%')`,
      [organization, escapeLike(search)],
    );
    return { rows, total: count.rows[0]?.n ?? 0 };
  }

  async updateProject(
    id: string,
    fields: { name?: string; description?: string },
  ): Promise<ProjectRow | undefined> {
    const { rows } = await this.db.query<ProjectRow>(
      `UPDATE projects SET name = coalesce($2, name), description = coalesce($3, description), updated_at = now()
        WHERE id = $1 RETURNING *`,
      [id, fields.name ?? null, fields.description ?? null],
    );
    return rows[0];
  }

  async deleteProject(id: string): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      'DELETE FROM workspaces WHERE project_id = $1 RETURNING id',
      [id],
    );
    await this.db.query('DELETE FROM projects WHERE id = $1', [id]);
    return rows.map((r) => r.id);
  }

  // ------------------------------------------------------------ workspaces

  async getWorkspace(id: string): Promise<WorkspaceRow | undefined> {
    const { rows } = await this.db.query<WorkspaceRow>(
      `SELECT ${WORKSPACE_WITH_ORGANIZATION_ID} WHERE w.id = $1`,
      [id],
    );
    return rows[0];
  }

  /** By the organization's unique (organization, name) index. */
  async getWorkspaceByName(organization: string, name: string): Promise<WorkspaceRow | undefined> {
    const { rows } = await this.db.query<WorkspaceRow>(
      `SELECT ${WORKSPACE_WITH_ORGANIZATION_ID} WHERE w.organization = $1 AND w.name = $2`,
      [organization, name],
    );
    return rows[0];
  }

  async getWorkspaces(ids: string[]): Promise<WorkspaceRow[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.db.query<WorkspaceRow>(
      `SELECT ${WORKSPACE_WITH_ORGANIZATION_ID} WHERE w.id = ANY($1)`,
      [ids],
    );
    return rows;
  }

  /**
   * Locks the organization's row until the transaction ends (workspace creates serialise on it)
   * and returns its workspace limit; undefined when the organization is gone.
   */
  async lockWorkspaceLimit(organization: string): Promise<number | null | undefined> {
    const { rows } = await this.db.query<{ workspace_limit: number | null }>(
      'SELECT workspace_limit FROM organizations WHERE name = $1 FOR NO KEY UPDATE',
      [organization],
    );
    return rows[0]?.workspace_limit;
  }

  async countWorkspaces(organization: string): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM workspaces WHERE organization = $1',
      [organization],
    );
    return rows[0]?.n ?? 0;
  }

  async insertWorkspace(
    row: Omit<WorkspaceRow, 'created_at' | 'updated_at' | 'organization_id'>,
  ): Promise<WorkspaceRow> {
    const { rows } = await this.db.query<WorkspaceRow>(
      `INSERT INTO workspaces (id, organization, project_id, name, description) VALUES ($1, $2, $3, $4, $5)
       RETURNING *, ${ORGANIZATION_ID_OF_ROW}`,
      [row.id, row.organization, row.project_id, row.name, row.description],
    );
    return rows[0]!;
  }

  async listWorkspaces(organization: string, filter: WorkspaceFilter, limit: number, offset: number) {
    const where = `organization = $1 AND ($2 = '' OR name ILIKE '%' || $2 || '%')
       AND ($3::text IS NULL OR name ILIKE $3) AND ($4::text IS NULL OR project_id = $4)`;
    const params = [
      organization,
      escapeLike(filter.search),
      filter.wildcardName ? wildcardPattern(filter.wildcardName) : null,
      filter.projectId ?? null,
    ];
    const { rows } = await this.db.query<WorkspaceRow & { total: number }>(
      `SELECT *, ${ORGANIZATION_ID_OF_ROW}, count(*) OVER () AS total FROM workspaces
        WHERE ${where} ORDER BY ${WORKSPACE_ORDER[filter.order]} LIMIT $5 OFFSET $6`,
      [...params, limit, offset],
    );
    if (rows.length > 0 || offset === 0) return { rows, total: rows[0]?.total ?? 0 };
    const count = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM workspaces WHERE ${where}`,
      params,
    );
    return { rows, total: count.rows[0]?.n ?? 0 };
  }

  async updateWorkspace(
    id: string,
    fields: { name?: string; description?: string; projectId?: string },
  ): Promise<WorkspaceRow | undefined> {
    const { rows } = await this.db.query<WorkspaceRow>(
      `UPDATE workspaces SET name = coalesce($2, name), description = coalesce($3, description),
              project_id = coalesce($4, project_id), updated_at = now()
        WHERE id = $1 RETURNING *, ${ORGANIZATION_ID_OF_ROW}`,
      [id, fields.name ?? null, fields.description ?? null, fields.projectId ?? null],
    );
    return rows[0];
  }

  async deleteWorkspace(id: string): Promise<boolean> {
    const { rowCount } = await this.db.query('DELETE FROM workspaces WHERE id = $1', [id]);
    return (rowCount ?? 0) > 0;
  }
}

export const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * A `search[wildcard-name]` pattern as an ILIKE pattern: a `*` at the start and one at the end
 * stand for any text; everything else, LIKE's own metacharacters and an inner `*` included, stands
 * for itself.
 */
export function wildcardPattern(pattern: string): string {
  const leading = pattern.startsWith('*');
  const rest = leading ? pattern.slice(1) : pattern;
  const trailing = rest.endsWith('*');
  const middle = trailing ? rest.slice(0, -1) : rest;
  return `${leading ? '%' : ''}${escapeLike(middle)}${trailing ? '%' : ''}`;
}

/** How a workspace list is narrowed and ordered (see ListWorkspacesRequest). */
export interface WorkspaceFilter {
  /** Substring of the name ('' = any). */
  search: string;
  /** A `*`-pattern of the name (undefined or '' = any). */
  wildcardName?: string | undefined;
  projectId?: string | undefined;
  order: WorkspaceOrder;
}

export type WorkspaceOrder = 'created' | 'name' | '-name';

/** ORDER BY clauses by order: fixed text, never built from input. */
const WORKSPACE_ORDER: Record<WorkspaceOrder, string> = {
  created: 'created_at, id',
  name: 'name, id',
  '-name': 'name DESC, id DESC',
};
