import type { Queryable } from '@policyhub/db';
import type { OrganizationRef } from '../db/organization-scope.js';
import { PolicyRepository } from '../db/policy-repository.js';
import type { TenancyDirectory } from '../domain/ports.js';
import { requireAllFound, requireSameKind } from '../domain/references.js';
import type { Kind } from '../domain/vocabulary.js';

export interface ReferencedIds {
  policies?: readonly string[] | undefined;
  workspaces?: readonly string[] | undefined;
  projects?: readonly string[] | undefined;
  workspaceExclusions?: readonly string[] | undefined;
  projectExclusions?: readonly string[] | undefined;
}

/**
 * The request field a bad reference is reported at: the relationship of a create/update, or the
 * `ids` of a relationship endpoint.
 */
export type PointerFor = (relationship: keyof ReferencedIds) => string;

export const bodyRelationshipPointer: PointerFor = (r) =>
  r === 'workspaceExclusions' ? 'workspace_exclusions' : r === 'projectExclusions' ? 'project_exclusions' : r;
export const relationshipEndpointPointer: PointerFor = () => 'ids';

/**
 * Workspaces and projects must exist in the set's organization: one batched admin-orgs call per
 * kind of reference (workspaces and exclusions share one), whatever the number of ids.
 */
export async function checkTenancyReferences(
  tenancy: TenancyDirectory,
  organization: string,
  refs: ReferencedIds,
  pointerFor: PointerFor,
): Promise<void> {
  const workspaceIds = [...new Set([...(refs.workspaces ?? []), ...(refs.workspaceExclusions ?? [])])];
  const projectIds = [...new Set([...(refs.projects ?? []), ...(refs.projectExclusions ?? [])])];
  const [workspaces, projects] = await Promise.all([
    tenancy.workspacesIn(organization, workspaceIds),
    tenancy.projectsIn(organization, projectIds),
  ]);
  if (refs.workspaces) requireAllFound('workspace', refs.workspaces, workspaces, pointerFor('workspaces'));
  if (refs.workspaceExclusions) {
    requireAllFound('workspace', refs.workspaceExclusions, workspaces, pointerFor('workspaceExclusions'));
  }
  if (refs.projects) requireAllFound('project', refs.projects, projects, pointerFor('projects'));
  if (refs.projectExclusions) {
    requireAllFound('project', refs.projectExclusions, projects, pointerFor('projectExclusions'));
  }
}

/** Policies must exist in the set's organization and be of the set's kind (one query). */
export async function checkPolicyReferences(
  db: Queryable,
  organization: OrganizationRef,
  setKind: Kind,
  policyIds: readonly string[] | undefined,
  pointer: string,
): Promise<void> {
  if (!policyIds || policyIds.length === 0) return;
  const kinds = await new PolicyRepository(db).kindsIn(organization, policyIds);
  requireAllFound('policy', policyIds, new Set(kinds.keys()), pointer);
  requireSameKind(setKind, kinds, pointer);
}
