import type { Queryable } from '@policyhub/db';
import type { VersionDeclaration } from '../domain/versions.js';
import type { EnforcementLevel, Kind } from '../domain/vocabulary.js';
import { inOrganization, type OrganizationRef } from './organization-scope.js';

export interface ApplicableSetRow {
  id: string;
  name: string;
  kind: Kind;
  overridable: boolean;
  agent_enabled: boolean;
  current_version_id: string | null;
  current_version_object_key: string | null;
  /** What the current version's archive declares; null for a version from before it was recorded. */
  current_version_declaration: VersionDeclaration | null;
  policies_path: string | null;
  description: string | null;
  policy_tool_version: string;
  /** In creation order; a sensitive one has only `sealed_value`. */
  parameters: Array<{
    id: string;
    key: string;
    value: string | null;
    sealed_value: string | null;
    sensitive: boolean;
  }>;
}

export interface ApplicablePolicyRow {
  policy_set_id: string;
  id: string;
  name: string;
  enforcement_level: EnforcementLevel;
  code: Buffer | null;
  query: string | null;
  description: string | null;
}

export interface ApplicableQuery {
  organization: OrganizationRef;
  workspaceId: string;
  /** Null for a workspace outside any project. */
  projectId: string | null;
  /** Undefined: every kind. */
  kind: Kind | undefined;
}

/**
 * The sets that apply to a run in a workspace: the organization's global sets, sets attached to
 * the workspace, and sets attached to its project, minus sets excluding the workspace or its
 * project (as workspace exclusions do, an exclusion wins over every way a set applies). Two
 * queries whatever the number of sets: the sets with their parameters, then all their policies.
 */
export async function findApplicablePolicySets(
  db: Queryable,
  q: ApplicableQuery,
): Promise<{ sets: ApplicableSetRow[]; policies: ApplicablePolicyRow[] }> {
  const { rows: sets } = await db.query<ApplicableSetRow>(
    `SELECT ps.id, ps.name, ps.kind, ps.overridable, ps.agent_enabled, ps.current_version_id,
            v.object_key AS current_version_object_key, v.declaration AS current_version_declaration,
            ps.policies_path,
            ps.description, ps.policy_tool_version,
            (SELECT coalesce(json_agg(json_build_object('id', a.id, 'key', a.key, 'value', a.value,
                                                        'sealed_value', a.sealed_value, 'sensitive', a.sensitive)
                                      ORDER BY a.position), '[]')
               FROM policy_set_parameters a WHERE a.policy_set_id = ps.id) AS parameters
       FROM policy_sets ps
       LEFT JOIN policy_set_versions v ON v.id = ps.current_version_id
      WHERE ${inOrganization('ps', 1, 5)}
        AND ($4::text IS NULL OR ps.kind = $4)
        AND (ps.global
             OR EXISTS (SELECT 1 FROM policy_set_workspaces w WHERE w.policy_set_id = ps.id AND w.workspace_id = $2)
             OR ($3::text IS NOT NULL AND EXISTS (SELECT 1 FROM policy_set_projects p
                                       WHERE p.policy_set_id = ps.id AND p.project_id = $3)))
        AND NOT EXISTS (SELECT 1 FROM policy_set_workspace_exclusions x
                         WHERE x.policy_set_id = ps.id AND x.workspace_id = $2)
        AND ($3::text IS NULL OR NOT EXISTS (SELECT 1 FROM policy_set_project_exclusions px
                                              WHERE px.policy_set_id = ps.id AND px.project_id = $3))
      ORDER BY ps.created_at, ps.id`,
    [q.organization.id, q.workspaceId, q.projectId, q.kind ?? null, q.organization.name],
  );
  if (sets.length === 0) return { sets, policies: [] };
  const { rows: policies } = await db.query<ApplicablePolicyRow>(
    `SELECT r.policy_set_id, p.id, p.name, p.enforcement_level, p.code, p.query, p.description
       FROM policy_set_policies r JOIN policies p ON p.id = r.policy_id
      WHERE r.policy_set_id = ANY($1)
      ORDER BY r.policy_set_id, r.position`,
    [sets.map((s) => s.id)],
  );
  return { sets, policies };
}
