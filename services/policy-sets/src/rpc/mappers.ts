import {
  type EnforcementLevelWord,
  enforcementLevel,
  type PolicyKindWord,
  type PolicySetVersionStatusWord,
  type policysetsV1,
  policyKind,
  toOptionalTimestamp,
  toTimestamp,
} from '@policyhub/contracts';
import type { PolicyRow } from '../db/policy-repository.js';
import type { PolicySetRow } from '../db/policy-set-repository.js';
import type { VcsRepo } from '../domain/vcs-repo.js';
import type { VersionStatus } from '../domain/versions.js';
import type { EnforcementLevel, Kind } from '../domain/vocabulary.js';

/** The domain's words are exactly the contract's enum words (a compile error otherwise). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const DOMAIN_WORDS_MATCH_CONTRACT: Same<Kind, PolicyKindWord> &
  Same<EnforcementLevel, EnforcementLevelWord> &
  Same<VersionStatus, PolicySetVersionStatusWord> = true;

/** A nullable column as an `optional` proto field: null leaves it unset. */
export const optional = <T>(v: T | null): T | undefined => v ?? undefined;

export const toPolicy = (r: PolicyRow): policysetsV1.Policy => ({
  id: r.id,
  organization: r.organization,
  name: r.name,
  description: optional(r.description),
  kind: policyKind.fromKnownWord(r.kind),
  query: optional(r.query),
  enforcementLevel: enforcementLevel.fromKnownWord(r.enforcement_level),
  enforcePath: optional(r.enforce_path),
  policySetCount: r.policy_set_ids.length,
  policySetIds: r.policy_set_ids,
  hasCode: r.has_code,
  createdAt: toTimestamp(r.created_at),
  updatedAt: toOptionalTimestamp(r.code_uploaded_at),
});

const toVcsRepoMessage = (v: VcsRepo): policysetsV1.VcsRepo => ({
  identifier: v.identifier,
  branch: optional(v.branch),
  oauthTokenId: optional(v.oauthTokenId),
  githubAppInstallationId: optional(v.githubAppInstallationId),
  ingressSubmodules: v.ingressSubmodules,
});

/**
 * A global set applies to every workspace of its organization, so it reports no individual
 * workspaces or projects (attachments made before it became global are kept, not shown).
 */
export function toPolicySet(r: PolicySetRow): policysetsV1.PolicySet {
  const vcsRepo = r.vcs_repo;
  const workspaceIds = r.global ? [] : r.workspace_ids;
  const projectIds = r.global ? [] : r.project_ids;
  return {
    id: r.id,
    organization: r.organization,
    name: r.name,
    description: optional(r.description),
    global: r.global,
    kind: policyKind.fromKnownWord(r.kind),
    overridable: r.overridable,
    agentEnabled: r.agent_enabled,
    policyToolVersion: r.policy_tool_version,
    policiesPath: optional(r.policies_path),
    vcsRepo: vcsRepo && toVcsRepoMessage(vcsRepo),
    versioned: r.versioned,
    policyCount: r.policy_ids.length,
    workspaceCount: workspaceIds.length,
    projectCount: projectIds.length,
    policyIds: r.policy_ids,
    workspaceIds,
    projectIds,
    workspaceExclusionIds: r.workspace_exclusion_ids,
    projectExclusionIds: r.project_exclusion_ids,
    currentVersionId: optional(r.current_version_id),
    newestVersionId: optional(r.newest_version_id),
    createdAt: toTimestamp(r.created_at),
    updatedAt: toTimestamp(r.updated_at),
  };
}
