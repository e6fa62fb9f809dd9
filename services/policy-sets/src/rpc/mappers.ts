import type { policysetsV1 } from '@policyhub/contracts';
import type { PolicyRow } from '../db/policy-repository.js';
import { type PolicySetRow, toVcsRepo } from '../db/policy-set-repository.js';

export const toPolicy = (r: PolicyRow): policysetsV1.Policy => ({
  id: r.id,
  organization: r.organization,
  name: r.name,
  description: r.description ?? '',
  kind: r.kind,
  query: r.query ?? '',
  enforcementLevel: r.enforcement_level,
  enforcePath: r.enforce_path ?? '',
  policySetCount: r.policy_set_ids.length,
  policySetIds: r.policy_set_ids,
  hasCode: r.has_code,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/**
 * A global set applies to every workspace of its organization, so it reports no individual
 * workspaces or projects (attachments made before it became global are kept, not shown).
 */
export function toPolicySet(r: PolicySetRow): policysetsV1.PolicySet {
  const vcsRepo = toVcsRepo(r.vcs_repo);
  const workspaceIds = r.global ? [] : r.workspace_ids;
  const projectIds = r.global ? [] : r.project_ids;
  return {
    id: r.id,
    organization: r.organization,
    name: r.name,
    description: r.description ?? '',
    global: r.global,
    kind: r.kind,
    overridable: r.overridable,
    agentEnabled: r.agent_enabled,
    policyToolVersion: r.policy_tool_version,
    policiesPath: r.policies_path ?? '',
    vcsRepo,
    versioned: r.versioned,
    policyCount: r.policy_ids.length,
    workspaceCount: workspaceIds.length,
    projectCount: projectIds.length,
    policyIds: r.policy_ids,
    workspaceIds,
    projectIds,
    workspaceExclusionIds: r.workspace_exclusion_ids,
    currentVersionId: r.current_version_id ?? '',
    newestVersionId: r.newest_version_id ?? '',
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
