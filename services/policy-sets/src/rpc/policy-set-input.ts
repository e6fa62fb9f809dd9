import { type policysetsV1, policyKind } from '@policyhub/contracts';
import type { PolicySetInput } from '../domain/policy-set-rules.js';
import type { VcsRepo } from '../domain/vcs-repo.js';
import type { ReferencedIds } from '../use-cases/reference-checks.js';

const vcsRepo = (v: policysetsV1.VcsRepo__Output): VcsRepo => ({
  identifier: v.identifier,
  branch: v.branch ?? null,
  oauthTokenId: v.oauthTokenId ?? null,
  githubAppInstallationId: v.githubAppInstallationId ?? null,
  ingressSubmodules: v.ingressSubmodules,
});

const ids = (list: policysetsV1.IdList__Output | null): string[] | undefined =>
  list ? [...new Set(list.ids)] : undefined;

/** An optional kind of a request as its word; unset = not given. */
export const kindOf = (kind: policysetsV1.PolicyKind__Output | undefined) =>
  kind === undefined ? undefined : policyKind.toWord(kind);

/** A `StringChange` of an update: unset = not given, without a value = clear (null). */
export const change = (c: policysetsV1.StringChange__Output | null): string | null | undefined =>
  c ? (c.value ?? null) : undefined;

export const createInput = (req: policysetsV1.CreatePolicySetRequest__Output): PolicySetInput => ({
  name: req.name,
  description: req.description,
  global: req.global,
  kind: kindOf(req.kind),
  overridable: req.overridable,
  agentEnabled: req.agentEnabled,
  policyToolVersion: req.policyToolVersion,
  policiesPath: req.policiesPath,
  vcsRepo: req.vcsRepo ? vcsRepo(req.vcsRepo) : undefined,
});

export const updateInput = (req: policysetsV1.UpdatePolicySetRequest__Output): PolicySetInput => ({
  name: req.name,
  description: change(req.description),
  global: req.global,
  kind: kindOf(req.kind),
  overridable: req.overridable,
  agentEnabled: req.agentEnabled,
  policyToolVersion: req.policyToolVersion,
  policiesPath: change(req.policiesPath),
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
