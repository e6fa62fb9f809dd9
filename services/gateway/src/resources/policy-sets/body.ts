import type { policysetsV1 } from '@policyhub/contracts';
import { AppError, type ErrorItem } from '@policyhub/errors';
import type { RequestDocument } from '../../jsonapi/body.js';
import { canonicalKind } from '../policies/kind.js';

/** A policy set body as read at the edge: JSON shape and types only (rules live in the service). */
export interface PolicySetBody {
  name?: string | undefined;
  /** null = clear (for nullable attributes). */
  description?: string | null | undefined;
  global?: boolean | undefined;
  kind?: string | undefined;
  overridable?: boolean | undefined;
  agentEnabled?: boolean | undefined;
  policyToolVersion?: string | null | undefined;
  policiesPath?: string | null | undefined;
  vcsRepo?: policysetsV1.VcsRepo | null | undefined;
  policyIds?: policysetsV1.IdList | undefined;
  workspaceIds?: policysetsV1.IdList | undefined;
  projectIds?: policysetsV1.IdList | undefined;
  workspaceExclusionIds?: policysetsV1.IdList | undefined;
}

const idList = (ids: string[] | undefined): policysetsV1.IdList | undefined => (ids ? { ids } : undefined);

export function readPolicySetBody(doc: RequestDocument, options: { create: boolean }): PolicySetBody {
  const body: PolicySetBody = {
    name: doc.string('name', { required: options.create, maxLength: 200 }),
    description: doc.nullableString('description', { maxLength: 10_000 }),
    global: doc.boolean('global'),
    kind: doc.string('kind', { maxLength: 50 }),
    overridable: doc.boolean('overridable'),
    agentEnabled: doc.boolean('agent-enabled'),
    policyToolVersion: doc.nullableString('policy-tool-version', { maxLength: 200 }),
    policiesPath: doc.nullableString('policies-path', { maxLength: 2_000 }),
    policyIds: idList(doc.relationshipIds('policies', 'policies')),
    workspaceIds: idList(doc.relationshipIds('workspaces', 'workspaces')),
    projectIds: idList(doc.relationshipIds('projects', 'projects')),
    workspaceExclusionIds: idList(doc.relationshipIds('workspace-exclusions', 'workspaces')),
  };
  const vcsRepo = doc.object('vcs-repo');
  doc.done();
  body.vcsRepo = vcsRepo === null || vcsRepo === undefined ? vcsRepo : readVcsRepo(vcsRepo);
  if (body.kind !== undefined) body.kind = canonicalKind(body.kind);
  return body;
}

/** `vcs-repo` keys and their JSON types; missing or null strings become "" (not set). */
function readVcsRepo(v: Record<string, unknown>): policysetsV1.VcsRepo {
  const errors: ErrorItem[] = [];
  const str = (key: string): string => {
    const value = v[key];
    if (value === undefined || value === null) return '';
    if (typeof value === 'string' && value.length <= 1_000) return value;
    errors.push({
      title: 'invalid attribute',
      detail: `${key} must be a string`,
      pointer: `/data/attributes/vcs-repo/${key}`,
    });
    return '';
  };
  const repo: policysetsV1.VcsRepo = {
    identifier: str('identifier'),
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
    description: b.description ?? '',
    global: b.global ?? false,
    kind: b.kind ?? '',
    overridable: b.overridable ?? false,
    agentEnabled: b.agentEnabled ?? false,
    policyToolVersion: b.policyToolVersion ?? '',
    policiesPath: b.policiesPath ?? '',
    vcsRepo: b.vcsRepo ?? null,
    policyIds: b.policyIds,
    workspaceIds: b.workspaceIds,
    projectIds: b.projectIds,
    workspaceExclusionIds: b.workspaceExclusionIds,
  };
}

export function updateRequest(id: string, b: PolicySetBody): policysetsV1.UpdatePolicySetRequest {
  const clearable = (v: string | null | undefined) => (v === null ? '' : v);
  return {
    id,
    name: b.name,
    description: clearable(b.description),
    global: b.global,
    kind: b.kind,
    overridable: b.overridable,
    agentEnabled: b.agentEnabled,
    policyToolVersion: clearable(b.policyToolVersion),
    policiesPath: clearable(b.policiesPath),
    vcsRepo: b.vcsRepo ?? null,
    clearVcsRepo: b.vcsRepo === null,
    policyIds: b.policyIds,
    workspaceIds: b.workspaceIds,
    projectIds: b.projectIds,
    workspaceExclusionIds: b.workspaceExclusionIds,
  };
}
