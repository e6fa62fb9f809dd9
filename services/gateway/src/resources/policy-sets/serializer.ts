import type { policysetsV1 } from '@policyhub/contracts';
import { type ResourceObject, orNull, selfLink, toMany, toOne } from '../../jsonapi/document.js';

const serializeVcsRepo = (v: policysetsV1.VcsRepo__Output) => ({
  branch: orNull(v.branch),
  identifier: v.identifier,
  'display-identifier': v.identifier,
  'oauth-token-id': orNull(v.oauthTokenId),
  'github-app-installation-id': orNull(v.githubAppInstallationId),
  'ingress-submodules': v.ingressSubmodules,
});

/**
 * The one serializer of `policy-sets` (create, show, list, included). Every relationship is
 * present as linkage without `include`; a global set omits `projects` and `workspaces` because it
 * is implicitly related to every workspace of its organization.
 */
export function serializePolicySet(s: policysetsV1.PolicySet__Output): ResourceObject {
  return {
    id: s.id,
    type: 'policy-sets',
    attributes: {
      name: s.name,
      description: orNull(s.description),
      global: s.global,
      kind: s.kind,
      overridable: s.overridable,
      'agent-enabled': s.agentEnabled,
      'policy-tool-version': s.policyToolVersion,
      'policies-path': orNull(s.policiesPath),
      'vcs-repo': s.vcsRepo ? serializeVcsRepo(s.vcsRepo) : null,
      versioned: s.versioned,
      'policy-count': s.policyCount,
      'workspace-count': s.workspaceCount,
      'project-count': s.projectCount,
      'created-at': s.createdAt,
      'updated-at': s.updatedAt,
    },
    relationships: {
      organization: toOne('organizations', s.organization),
      policies: toMany('policies', s.policyIds),
      ...(s.global
        ? {}
        : { workspaces: toMany('workspaces', s.workspaceIds), projects: toMany('projects', s.projectIds) }),
      'workspace-exclusions': toMany('workspaces', s.workspaceExclusionIds),
      'newest-version': toOne('policy-set-versions', s.newestVersionId),
      'current-version': toOne('policy-set-versions', s.currentVersionId),
    },
    links: selfLink(`/policy-sets/${s.id}`),
  };
}
