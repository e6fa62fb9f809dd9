import type { policysetsV1 } from '@policyhub/contracts';
import type { FastifyRequest } from 'fastify';
import { Included, type ResourceObject } from '../../jsonapi/document.js';
import { type RouteContext, as } from '../../route-context.js';
import { serializePolicySetVersion } from '../policy-set-versions/serializer.js';
import { serializePolicy } from '../policies/serializer.js';
import { serializeProject } from '../projects/serializer.js';
import { serializeWorkspace } from '../workspaces/serializer.js';

/** `include` values of policy set show and list (hyphen spellings are accepted too). */
export const POLICY_SET_INCLUDES = [
  'policies',
  'workspaces',
  'projects',
  'workspace_exclusions',
  'project_exclusions',
  'newest_version',
  'current_version',
] as const;

const unique = (ids: Iterable<string | undefined>): string[] => [
  ...new Set([...ids].filter((id): id is string => Boolean(id))),
];

/**
 * Full objects for the requested relationships of `sets`, composed with at most one batch call
 * per target type (workspaces and their exclusions share one, projects and theirs too, both versions share one) whatever the
 * number of sets. Order: by include name as requested, then by first appearance.
 */
export async function includedFor(
  sets: policysetsV1.PolicySet__Output[],
  include: ReadonlySet<string>,
  ctx: RouteContext,
  request: FastifyRequest,
): Promise<Included | undefined> {
  if (include.size === 0) return undefined;
  const { clients } = ctx;
  const ids = {
    policies: include.has('policies') ? unique(sets.flatMap((s) => s.policyIds)) : [],
    workspaces: include.has('workspaces') ? unique(sets.flatMap((s) => s.workspaceIds)) : [],
    exclusions: include.has('workspace_exclusions')
      ? unique(sets.flatMap((s) => s.workspaceExclusionIds))
      : [],
    projects: include.has('projects') ? unique(sets.flatMap((s) => s.projectIds)) : [],
    projectExclusions: include.has('project_exclusions')
      ? unique(sets.flatMap((s) => s.projectExclusionIds))
      : [],
    newest: include.has('newest_version') ? unique(sets.map((s) => s.newestVersionId)) : [],
    current: include.has('current_version') ? unique(sets.map((s) => s.currentVersionId)) : [],
  };
  const workspaceIds = unique([...ids.workspaces, ...ids.exclusions]);
  const projectIds = unique([...ids.projects, ...ids.projectExclusions]);
  const versionIds = unique([...ids.newest, ...ids.current]);
  const baseUrl = ctx.baseUrl(request);
  const [policies, workspaces, projects, versions] = await Promise.all([
    ids.policies.length
      ? clients.policies
          .BatchGetPolicies({ ids: ids.policies }, as(request))
          .then((r) => r.policies.map(serializePolicy))
      : [],
    workspaceIds.length
      ? clients.workspaces
          .BatchGetWorkspaces({ ids: workspaceIds }, as(request))
          .then((r) => r.workspaces.map((x) => serializeWorkspace(x, request.principal)))
      : [],
    projectIds.length
      ? clients.projects
          .BatchGetProjects({ ids: projectIds }, as(request))
          .then((r) => r.projects.map((x) => serializeProject(x, request.principal)))
      : [],
    versionIds.length
      ? clients.policySetVersions
          .BatchGetPolicySetVersions({ ids: versionIds }, as(request))
          .then((r) => r.versions.map((v) => serializePolicySetVersion(v, baseUrl)))
      : [],
  ]);
  const sources = new Map<string, { wanted: string[]; found: ResourceObject[] }>([
    ['policies', { wanted: ids.policies, found: policies }],
    ['workspaces', { wanted: ids.workspaces, found: workspaces }],
    ['workspace_exclusions', { wanted: ids.exclusions, found: workspaces }],
    ['projects', { wanted: ids.projects, found: projects }],
    ['project_exclusions', { wanted: ids.projectExclusions, found: projects }],
    ['newest_version', { wanted: ids.newest, found: versions }],
    ['current_version', { wanted: ids.current, found: versions }],
  ]);
  const included = new Included();
  for (const name of include) {
    const source = sources.get(name);
    if (!source) continue;
    const byId = new Map(source.found.map((r) => [r.id, r]));
    included.add(source.wanted.flatMap((id) => byId.get(id) ?? []));
  }
  return included;
}
