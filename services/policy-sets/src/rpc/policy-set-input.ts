import type { policysetsV1 } from '@policyhub/contracts';
import type { PolicySetInput } from '../domain/policy-set-rules.js';
import type { VcsRepo } from '../domain/vcs-repo.js';
import type { ReferencedIds } from './reference-checks.js';

const vcsRepo = (v: policysetsV1.VcsRepo__Output): VcsRepo => ({
  identifier: v.identifier,
  branch: v.branch,
  oauthTokenId: v.oauthTokenId,
  githubAppInstallationId: v.githubAppInstallationId,
  ingressSubmodules: v.ingressSubmodules,
});

const ids = (list: policysetsV1.IdList__Output | null): string[] | undefined =>
  list ? [...new Set(list.ids)] : undefined;

export const createInput = (req: policysetsV1.CreatePolicySetRequest__Output): PolicySetInput => ({
  name: req.name,
  description: req.description,
  global: req.global,
  kind: req.kind,
  overridable: req.overridable,
  agentEnabled: req.agentEnabled,
  policyToolVersion: req.policyToolVersion,
  policiesPath: req.policiesPath,
  vcsRepo: req.vcsRepo ? vcsRepo(req.vcsRepo) : undefined,
});

export const updateInput = (req: policysetsV1.UpdatePolicySetRequest__Output): PolicySetInput => ({
  name: req.name,
  description: req.description,
  global: req.global,
  kind: req.kind,
  overridable: req.overridable,
  agentEnabled: req.agentEnabled,
  policyToolVersion: req.policyToolVersion,
  policiesPath: req.policiesPath,
  vcsRepo: req.clearVcsRepo ? null : req.vcsRepo ? vcsRepo(req.vcsRepo) : undefined,
});

/** Relationship lists of a create or update request; undefined = not given. */
export const referencedIds = (
  req: policysetsV1.CreatePolicySetRequest__Output | policysetsV1.UpdatePolicySetRequest__Output,
): ReferencedIds => ({
  policies: ids(req.policyIds),
  workspaces: ids(req.workspaceIds),
  projects: ids(req.projectIds),
  workspaceExclusions: ids(req.workspaceExclusionIds),
});
