import type { Queryable } from '@policyhub/db';
import type { PolicySetFields } from '../domain/policy-set-rules.js';
import type { VcsRepo } from '../domain/vcs-repo.js';
import type { Kind } from '../domain/vocabulary.js';
import { escapeLike } from './escape-like.js';
import { inOrganization, type OrganizationRef } from './organization-scope.js';

/** A policy set's own row, without its linked items. */
export interface PolicySetRecord {
  id: string;
  organization: string;
  /** Null for rows recorded before organization ids existed. */
  organization_id: string | null;
  name: string;
  description: string | null;
  global: boolean;
  kind: Kind;
  overridable: boolean;
  agent_enabled: boolean;
  policy_tool_version: string;
  policies_path: string | null;
  vcs_repo: VcsRepo | null;
  /** API-versioned or VCS-backed. */
  versioned: boolean;
  current_version_id: string | null;
  newest_version_id: string | null;
  created_at: string;
  updated_at: string;
}

/** The ids a set links to, each list in the order the items were added. */
export interface PolicySetLinks {
  policy_ids: string[];
  workspace_ids: string[];
  project_ids: string[];
  workspace_exclusion_ids: string[];
  project_exclusion_ids: string[];
}

/** A set as the API shows it: its row and its linked items. */
export type PolicySetRow = PolicySetRecord & PolicySetLinks;

type Stored<R> = Omit<R, 'vcs_repo'> & { vcs_repo: StoredVcsRepo | null };

/** The `vcs_repo` JSON column (null = not set; migration 0005 turned older `""` into null). */
interface StoredVcsRepo {
  identifier: string;
  branch: string | null;
  oauth_token_id: string | null;
  github_app_installation_id: string | null;
  ingress_submodules: boolean;
}

/** The four to-many relationships of a set and their join tables. */
export const RELATIONSHIPS = {
  policies: { table: 'policy_set_policies', column: 'policy_id' },
  workspaces: { table: 'policy_set_workspaces', column: 'workspace_id' },
  projects: { table: 'policy_set_projects', column: 'project_id' },
  workspaceExclusions: { table: 'policy_set_workspace_exclusions', column: 'workspace_id' },
  projectExclusions: { table: 'policy_set_project_exclusions', column: 'project_id' },
} as const;
export type RelationshipName = keyof typeof RELATIONSHIPS;

/** Members that live in admin-orgs and may be deleted there while a set is being changed. */
const TENANCY_MEMBER_KIND: Partial<Record<RelationshipName, 'workspace' | 'project'>> = {
  workspaces: 'workspace',
  workspaceExclusions: 'workspace',
  projects: 'project',
  projectExclusions: 'project',
};

/** How long tombstones of deleted workspaces and projects are kept (see 0004_create_deleted_references.sql). */
const TOMBSTONE_RETENTION = '1 day';

/**
 * Per-id transaction locks shared by attaching a workspace or project and applying its deletion
 * (`kind:id` keys), taken in key order in one statement so two writers never wait on each other
 * in a cycle. Re-entrant: a transaction may lock a key it already holds.
 */
const lockReferences = (db: Queryable, keys: readonly string[]) =>
  db.query(
    `SELECT pg_advisory_xact_lock(hashtextextended('policy_sets:' || r.key, 0))
       FROM (SELECT DISTINCT key FROM unnest($1::text[]) AS u(key) ORDER BY key) AS r`,
    [keys],
  );

const ids = (name: RelationshipName) => {
  const { table, column } = RELATIONSHIPS[name];
  return `ARRAY(SELECT r.${column} FROM ${table} r WHERE r.policy_set_id = ps.id ORDER BY r.position)`;
};

const RECORD_COLUMNS = `ps.id, ps.organization, ps.organization_id, ps.name, ps.description, ps.global, ps.kind, ps.overridable,
  ps.agent_enabled, ps.policy_tool_version, ps.policies_path, ps.vcs_repo,
  (ps.versioned OR ps.vcs_repo IS NOT NULL) AS versioned, ps.current_version_id, ps.newest_version_id,
  ps.created_at, ps.updated_at`;

// A subquery per relationship and set, never a query per set: any number of sets costs one statement.
const LINK_COLUMNS = `${ids('policies')} AS policy_ids, ${ids('workspaces')} AS workspace_ids,
  ${ids('projects')} AS project_ids, ${ids('workspaceExclusions')} AS workspace_exclusion_ids,
  ${ids('projectExclusions')} AS project_exclusion_ids`;

export interface PolicySetFilter {
  search: string;
  /** Undefined: every kind. */
  kind: Kind | undefined;
  versioned: boolean | null;
}

const MATCHING = `($2 = '' OR name ILIKE '%' || $2 || '%') AND ($3::text IS NULL OR kind = $3)
  AND ($4::boolean IS NULL OR (versioned OR vcs_repo IS NOT NULL) = $4)`;

const FILTER = `${inOrganization('', 1, 7)} AND ${MATCHING}`;

/**
 * The ids of one page ($5 rows after $6) in list order. `inOrganization`'s two cases are two
 * branches, each read in order from its (organization…, created_at, id) index and merged, so a
 * page reads its own rows and the ones before it, never sorts the whole organization.
 */
const PAGE_IDS = `SELECT id, created_at FROM (
    (SELECT id, created_at FROM policy_sets WHERE organization_id = $1 AND ${MATCHING}
      ORDER BY created_at, id LIMIT $5::bigint + $6::bigint)
    UNION ALL
    (SELECT id, created_at FROM policy_sets WHERE organization_id IS NULL AND organization = $7 AND ${MATCHING}
      ORDER BY created_at, id LIMIT $5::bigint + $6::bigint)
  ) branches ORDER BY created_at, id LIMIT $5 OFFSET $6`;

const storedVcsRepo = (v: VcsRepo | null): StoredVcsRepo | null =>
  v && {
    identifier: v.identifier,
    branch: v.branch,
    oauth_token_id: v.oauthTokenId,
    github_app_installation_id: v.githubAppInstallationId,
    ingress_submodules: v.ingressSubmodules,
  };

const toVcsRepo = (v: StoredVcsRepo | null): VcsRepo | null =>
  v && {
    identifier: v.identifier,
    branch: v.branch,
    oauthTokenId: v.oauth_token_id,
    githubAppInstallationId: v.github_app_installation_id,
    ingressSubmodules: v.ingress_submodules,
  };

export const toPolicySetFields = (r: PolicySetRecord): PolicySetFields => ({
  name: r.name,
  description: r.description,
  global: r.global,
  kind: r.kind,
  overridable: r.overridable,
  agentEnabled: r.agent_enabled,
  policyToolVersion: r.policy_tool_version,
  policiesPath: r.policies_path,
  vcsRepo: r.vcs_repo,
});

/** The stored JSON of `vcs_repo` as the domain's VcsRepo. */
const fromStored = <R extends PolicySetRecord>(r: Stored<R>): R =>
  ({ ...r, vcs_repo: toVcsRepo(r.vcs_repo) }) as R;

export class PolicySetRepository {
  constructor(private readonly db: Queryable) {}

  /** The set's row alone; its linked items come from `links`, once the caller may see it. */
  async get(id: string, options: { forUpdate?: boolean } = {}): Promise<PolicySetRecord | undefined> {
    const lock = options.forUpdate ? 'FOR UPDATE OF ps' : '';
    // Every point read: prepared, planned once per connection (ADR 0032).
    const { rows } = await this.db.query<Stored<PolicySetRecord>>(
      `SELECT ${RECORD_COLUMNS} FROM policy_sets ps WHERE ps.id = $1 ${lock}`,
      [id],
      { prepare: true },
    );
    return rows[0] && fromStored(rows[0]);
  }

  async getMany(setIds: readonly string[]): Promise<PolicySetRecord[]> {
    if (setIds.length === 0) return [];
    const { rows } = await this.db.query<Stored<PolicySetRecord>>(
      `SELECT ${RECORD_COLUMNS} FROM policy_sets ps WHERE ps.id = ANY($1) ORDER BY ps.created_at, ps.id`,
      [setIds],
    );
    return rows.map(fromStored);
  }

  /** The linked items of each of `setIds` that exists, in one statement whatever their number. */
  async links(setIds: readonly string[]): Promise<Map<string, PolicySetLinks>> {
    if (setIds.length === 0) return new Map();
    const { rows } = await this.db.query<PolicySetLinks & { id: string }>(
      `SELECT ps.id, ${LINK_COLUMNS} FROM policy_sets ps WHERE ps.id = ANY($1::text[])`,
      [setIds],
      { prepare: true },
    );
    return new Map(rows.map(({ id, ...links }) => [id, links]));
  }

  /**
   * A page of an organization's sets with their linked items (the caller may see the whole
   * organization): the page is chosen first, then the links of just that page, in one statement.
   */
  async list(organization: OrganizationRef, filter: PolicySetFilter, limit: number, offset: number) {
    const params = [organization.id, escapeLike(filter.search), filter.kind ?? null, filter.versioned];
    const { rows } = await this.db.query<Stored<PolicySetRow> & { total: number }>(
      `SELECT ${RECORD_COLUMNS}, ${LINK_COLUMNS},
              (SELECT count(*) FROM policy_sets WHERE ${FILTER}) AS total
         FROM (${PAGE_IDS}) page JOIN policy_sets ps ON ps.id = page.id
        ORDER BY ps.created_at, ps.id`,
      [...params, limit, offset, organization.name],
    );
    if (rows.length > 0) return { rows: rows.map((r) => fromStored<PolicySetRow>(r)), total: rows[0]!.total };
    // An empty first page: nothing matches (a search matching nothing costs one read, not two).
    if (offset === 0) return { rows: [], total: 0 };
    // A page past the end still tells how many there are.
    const { rows: count } = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM policy_sets WHERE ${FILTER.replace('$7', '$5')}`,
      [...params, organization.name],
    );
    return { rows: [], total: count[0]?.n ?? 0 };
  }

  async countInOrganization(organization: OrganizationRef): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM policy_sets WHERE ${inOrganization('', 1, 2)}`,
      [organization.id, organization.name],
    );
    return rows[0]?.n ?? 0;
  }

  /** Serialises writers that check an organization-wide limit (the free tier's one set). */
  async lockOrganization(organization: OrganizationRef): Promise<void> {
    await this.db.query(`SELECT pg_advisory_xact_lock(hashtextextended('policy_sets:' || $1, 0))`, [
      organization.id,
    ]);
  }

  async insert(id: string, organization: OrganizationRef, f: PolicySetFields): Promise<void> {
    await this.db.query(
      `INSERT INTO policy_sets (id, organization, organization_id, name, description, global, kind, overridable,
                                agent_enabled, policy_tool_version, policies_path, vcs_repo)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        id,
        organization.name,
        organization.id,
        f.name,
        f.description,
        f.global,
        f.kind,
        f.overridable,
        f.agentEnabled,
        f.policyToolVersion,
        f.policiesPath,
        storedVcsRepo(f.vcsRepo),
      ],
    );
  }

  async update(id: string, f: PolicySetFields): Promise<void> {
    await this.db.query(
      `UPDATE policy_sets SET name = $2, description = $3, global = $4, overridable = $5, agent_enabled = $6,
              policy_tool_version = $7, policies_path = $8, vcs_repo = $9, updated_at = now()
        WHERE id = $1`,
      [
        id,
        f.name,
        f.description,
        f.global,
        f.overridable,
        f.agentEnabled,
        f.policyToolVersion,
        f.policiesPath,
        storedVcsRepo(f.vcsRepo),
      ],
    );
  }

  async touch(id: string): Promise<void> {
    await this.db.query('UPDATE policy_sets SET updated_at = now() WHERE id = $1', [id]);
  }

  async delete(id: string): Promise<boolean> {
    const { rowCount } = await this.db.query('DELETE FROM policy_sets WHERE id = $1', [id]);
    return (rowCount ?? 0) > 0;
  }

  /**
   * Locks every workspace and project among `members` at once, before a change that adds several
   * relationships (create, update), so their locks are taken in one order.
   */
  async lockTenancyMembers(
    members: Partial<Record<RelationshipName, readonly string[] | undefined>>,
  ): Promise<void> {
    const keys: string[] = [];
    for (const [name, ids] of Object.entries(members) as Array<
      [RelationshipName, readonly string[] | undefined]
    >) {
      const kind = TENANCY_MEMBER_KIND[name];
      if (kind && ids) for (const id of ids) keys.push(`${kind}:${id}`);
    }
    if (keys.length > 0) await lockReferences(this.db, keys);
  }

  /**
   * Adds members (already present ones keep their place). Workspaces and projects were checked
   * with admin-orgs before the transaction; one deleted since then (its deletion already applied
   * here, see forgetWorkspace) is left out, as if it had been attached just before its deletion.
   */
  async addMembers(setId: string, name: RelationshipName, memberIds: readonly string[]): Promise<void> {
    if (memberIds.length === 0) return;
    const { table, column } = RELATIONSHIPS[name];
    const kind = TENANCY_MEMBER_KIND[name];
    if (kind)
      await lockReferences(
        this.db,
        memberIds.map((id) => `${kind}:${id}`),
      );
    await this.db.query(
      `INSERT INTO ${table} (policy_set_id, ${column})
       SELECT $1, m.id FROM unnest($2::text[]) WITH ORDINALITY AS m(id, n)
        WHERE $3::text IS NULL
           OR NOT EXISTS (SELECT 1 FROM deleted_references d WHERE d.kind = $3 AND d.id = m.id)
        ORDER BY m.n
       ON CONFLICT DO NOTHING`,
      [setId, memberIds, kind ?? null],
    );
  }

  async removeMembers(setId: string, name: RelationshipName, memberIds: readonly string[]): Promise<void> {
    if (memberIds.length === 0) return;
    const { table, column } = RELATIONSHIPS[name];
    await this.db.query(`DELETE FROM ${table} WHERE policy_set_id = $1 AND ${column} = ANY($2)`, [
      setId,
      memberIds,
    ]);
  }

  /** Makes the relationship exactly `memberIds` (an empty list clears it). */
  async replaceMembers(setId: string, name: RelationshipName, memberIds: readonly string[]): Promise<void> {
    const { table, column } = RELATIONSHIPS[name];
    await this.db.query(`DELETE FROM ${table} WHERE policy_set_id = $1 AND NOT (${column} = ANY($2))`, [
      setId,
      memberIds,
    ]);
    await this.addMembers(setId, name, memberIds);
  }

  /**
   * A workspace or project went away in admin-orgs: drop every reference to it, and remember it
   * (a tombstone) so an attach that checked it just before the deletion cannot add it back.
   * Under the id's lock: an attach either committed before (its link is dropped here) or runs
   * after (it sees the tombstone).
   */
  async forgetWorkspace(workspaceId: string): Promise<void> {
    await this.recordDeletion('workspace', workspaceId);
    await this.db.query('DELETE FROM policy_set_workspaces WHERE workspace_id = $1', [workspaceId]);
    await this.db.query('DELETE FROM policy_set_workspace_exclusions WHERE workspace_id = $1', [workspaceId]);
  }

  async forgetProject(projectId: string): Promise<void> {
    await this.recordDeletion('project', projectId);
    await this.db.query('DELETE FROM policy_set_projects WHERE project_id = $1', [projectId]);
    await this.db.query('DELETE FROM policy_set_project_exclusions WHERE project_id = $1', [projectId]);
  }

  private async recordDeletion(kind: 'workspace' | 'project', id: string): Promise<void> {
    await lockReferences(this.db, [`${kind}:${id}`]);
    await this.db.query(
      'INSERT INTO deleted_references (kind, id) VALUES ($1, $2) ON CONFLICT (kind, id) DO NOTHING',
      [kind, id],
    );
    await this.db.query(
      `DELETE FROM deleted_references WHERE deleted_at < now() - interval '${TOMBSTONE_RETENTION}'`,
    );
  }

  /** Sets of a deleted organization; their versions and relationships go with them (cascade). */
  async deleteOrganization(organization: OrganizationRef): Promise<void> {
    await this.db.query(`DELETE FROM policy_sets WHERE ${inOrganization('', 1, 2)}`, [
      organization.id,
      organization.name,
    ]);
  }
}
