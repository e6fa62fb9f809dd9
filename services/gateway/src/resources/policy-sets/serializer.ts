import { type policysetsV1, policyKind } from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import { isoTime, selfLink, toMany, toOne } from '../../jsonapi/document.js';
import type { POLICY_SET } from './schema.js';

export type PolicySetObject = Static<typeof POLICY_SET.schema>;

const serializeVcsRepo = (v: policysetsV1.VcsRepo__Output) => ({
  branch: v.branch ?? null,
  identifier: v.identifier,
  'display-identifier': v.identifier,
  'oauth-token-id': v.oauthTokenId ?? null,
  'github-app-installation-id': v.githubAppInstallationId ?? null,
  'ingress-submodules': v.ingressSubmodules,
});

/**
 * The one serializer of `policy-sets` (create, show, list, included). Every relationship is
 * present as linkage without `include`; a global set omits `projects` and `workspaces` because it
 * is implicitly related to every workspace of its organization.
 */
export function serializePolicySet(s: policysetsV1.PolicySet__Output): PolicySetObject {
  return {
    id: s.id,
    type: 'policy-sets',
    attributes: {
      name: s.name,
      description: s.description ?? null,
      global: s.global,
      kind: policyKind.toWord(s.kind),
      overridable: s.overridable,
      'agent-enabled': s.agentEnabled,
      'policy-tool-version': s.policyToolVersion,
      'policies-path': s.policiesPath ?? null,
      'vcs-repo': s.vcsRepo ? serializeVcsRepo(s.vcsRepo) : null,
      versioned: s.versioned,
      'policy-count': s.policyCount,
      'workspace-count': s.workspaceCount,
      'project-count': s.projectCount,
      'created-at': isoTime(s.createdAt),
      'updated-at': isoTime(s.updatedAt),
    },
    relationships: {
      organization: toOne('organizations', s.organization),
      policies: toMany('policies', s.policyIds),
      ...(s.global
        ? {}
        : { workspaces: toMany('workspaces', s.workspaceIds), projects: toMany('projects', s.projectIds) }),
      'workspace-exclusions': toMany('workspaces', s.workspaceExclusionIds),
      'project-exclusions': toMany('projects', s.projectExclusionIds),
      'newest-version': toOne('policy-set-versions', s.newestVersionId),
      'current-version': toOne('policy-set-versions', s.currentVersionId),
    },
    links: selfLink(`/policy-sets/${s.id}`),
  };
}
