import { type policysetsV1, policyKind } from '@policyhub/contracts';
import { AppError, type ErrorItem } from '@policyhub/errors';
import type { RequestDocument } from '../../jsonapi/body.js';
import { stringChange } from '../policies/body.js';
import { readKind } from './words.js';

/**
 * A policy set body as read at the edge (its route schema checked shape and types; this reads
 * the enum words; rules live in the service). undefined = not given; null = clear (for nullable
 * attributes, `""` clears too).
 */
export interface PolicySetBody {
  name?: string | undefined;
  description?: string | null | undefined;
  global?: boolean | undefined;
  kind?: policysetsV1.PolicyKind__Output | undefined;
  overridable?: boolean | undefined;
  agentEnabled?: boolean | undefined;
  policyToolVersion?: string | undefined;
  policiesPath?: string | null | undefined;
  vcsRepo?: policysetsV1.VcsRepo | null | undefined;
  policyIds?: policysetsV1.IdList | undefined;
  workspaceIds?: policysetsV1.IdList | undefined;
  projectIds?: policysetsV1.IdList | undefined;
  workspaceExclusionIds?: policysetsV1.IdList | undefined;
}

const idList = (ids: string[] | undefined): policysetsV1.IdList | undefined => (ids ? { ids } : undefined);

export function readPolicySetBody(doc: RequestDocument): PolicySetBody {
  const { kind, ...read } = {
    name: doc.string('name'),
    description: doc.nullableString('description'),
    global: doc.boolean('global'),
    kind: doc.string('kind'),
    overridable: doc.boolean('overridable'),
    agentEnabled: doc.boolean('agent-enabled'),
    policyToolVersion: doc.nullableString('policy-tool-version'),
    policiesPath: doc.nullableString('policies-path'),
    policyIds: idList(doc.relationshipIds('policies')),
    workspaceIds: idList(doc.relationshipIds('workspaces')),
    projectIds: idList(doc.relationshipIds('projects')),
    workspaceExclusionIds: idList(doc.relationshipIds('workspace-exclusions')),
  };
  const vcsRepo = doc.object('vcs-repo');
  const body: PolicySetBody = {
    ...read,
    // `""` clears a nullable attribute like null; an empty or null tool version is "not given"
    // (older clients send `""`).
    description: read.description === '' ? null : read.description,
    policyToolVersion: read.policyToolVersion || undefined,
    policiesPath: read.policiesPath === '' ? null : read.policiesPath,
    vcsRepo: vcsRepo === null || vcsRepo === undefined ? vcsRepo : readVcsRepo(vcsRepo),
  };
  if (kind !== undefined) body.kind = readKind(kind);
  return body;
}

/** What the set an update applies to already is (undefined on create). */
export interface CurrentAgentSettings {
  kind: policysetsV1.PolicyKind__Output;
  agentEnabled: boolean;
}

/**
 * Upstream's leniency (profiles with `agentLeniency`, ADR 0020): attributes
 * that do not apply to the set are accepted and ignored instead of refused — `policy-tool-version`
 * and `overridable` on a kind_a set without the agent, `agent-enabled: true` on a kind_b set.
 * `current` is the stored set on update; on create an absent kind is the spec's default, kind_a.
 */
export function ignoreInapplicableAgentAttributes(
  b: PolicySetBody,
  current?: CurrentAgentSettings,
): PolicySetBody {
  const kind = policyKind.toWord(current?.kind ?? b.kind ?? 'POLICY_KIND_A');
  const agentEnabled = b.agentEnabled ?? current?.agentEnabled ?? false;
  const out: PolicySetBody = { ...b };
  if (kind === 'kind_a' && !agentEnabled) {
    out.policyToolVersion = undefined;
    out.overridable = undefined;
  }
  if (kind === 'kind_b' && b.agentEnabled === true) out.agentEnabled = undefined;
  return out;
}

/** Whether an update body holds anything `ignoreInapplicableAgentAttributes` may drop. */
export const touchesAgentAttributes = (b: PolicySetBody): boolean =>
  b.policyToolVersion !== undefined || b.overridable !== undefined || b.agentEnabled === true;

/** `vcs-repo` keys and their JSON types; missing, null or empty strings are not set. */
function readVcsRepo(v: Record<string, unknown>): policysetsV1.VcsRepo {
  const errors: ErrorItem[] = [];
  const str = (key: string): string | undefined => {
    const value = v[key];
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value === 'string' && value.length <= 1_000) return value;
    errors.push({
      title: 'invalid attribute',
      detail: `${key} must be a string`,
      pointer: `/data/attributes/vcs-repo/${key}`,
    });
    return undefined;
  };
  const repo: policysetsV1.VcsRepo = {
    identifier: str('identifier') ?? '',
    branch: str('branch'),
    oauthTokenId: str('oauth-token-id'),
    githubAppInstallationId: str('github-app-installation-id'),
    ingressSubmodules: false,
  };
  const submodules = v['ingress-submodules'];
  if (typeof submodules === 'boolean') repo.ingressSubmodules = submodules;
  else if (submodules !== undefined && submodules !== null) {
    errors.push({
      title: 'invalid attribute',
      detail: 'ingress-submodules must be true or false',
      pointer: '/data/attributes/vcs-repo/ingress-submodules',
    });
  }
  if (errors.length > 0) throw new AppError('invalid', 'GATEWAY_INVALID_BODY', errors);
  return repo;
}

export function createRequest(organization: string, b: PolicySetBody): policysetsV1.CreatePolicySetRequest {
  return {
    organization,
    name: b.name ?? '',
    description: b.description ?? undefined,
    global: b.global ?? false,
    kind: b.kind,
    overridable: b.overridable ?? false,
    agentEnabled: b.agentEnabled ?? false,
    policyToolVersion: b.policyToolVersion ?? undefined,
    policiesPath: b.policiesPath ?? undefined,
    vcsRepo: b.vcsRepo ?? null,
    policyIds: b.policyIds,
    workspaceIds: b.workspaceIds,
    projectIds: b.projectIds,
    workspaceExclusionIds: b.workspaceExclusionIds,
  };
}

export function updateRequest(id: string, b: PolicySetBody): policysetsV1.UpdatePolicySetRequest {
  return {
    id,
    name: b.name,
    description: stringChange(b.description),
    global: b.global,
    kind: b.kind,
    overridable: b.overridable,
    agentEnabled: b.agentEnabled,
    policyToolVersion: b.policyToolVersion ?? undefined,
    policiesPath: stringChange(b.policiesPath),
    vcsRepo: b.vcsRepo ?? null,
    clearVcsRepo: b.vcsRepo === null,
    policyIds: b.policyIds,
    workspaceIds: b.workspaceIds,
    projectIds: b.projectIds,
    workspaceExclusionIds: b.workspaceExclusionIds,
  };
}
