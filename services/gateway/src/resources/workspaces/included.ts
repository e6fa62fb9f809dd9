import type { adminorgsV1 } from '@policyhub/contracts';
import type { FastifyRequest } from 'fastify';
import type { Included } from '../../jsonapi/document.js';
import { type RouteContext, as } from '../../route-context.js';
import { serializeOrganization } from '../organizations/serializer.js';
import { serializeProject } from '../projects/serializer.js';
import { serializeRun } from '../runs/serializer.js';

/**
 * What `include` may add to workspaces here. Upstream's others (`current_run.plan`, `locked_by`,
 * `readme`, `outputs`, …) name what PolicyHub does not keep with a workspace: a 400 naming them.
 */
export const WORKSPACE_INCLUDES = ['organization', 'project', 'current_run'] as const;

/**
 * Adds the organizations, projects and current runs of these workspaces to `included`: one call
 * per kind of relationship, whatever the number of workspaces (never one per item). With
 * `current_run`, answers each workspace's current run id (workspace id -> run id) for the
 * `current-run` relationship.
 */
export async function includeWorkspaceRelations(
  ctx: RouteContext,
  request: FastifyRequest,
  workspaces: readonly adminorgsV1.Workspace__Output[],
  include: ReadonlySet<string>,
  included: Included,
): Promise<ReadonlyMap<string, string> | undefined> {
  const organizations = include.has('organization')
    ? // A list is of one organization, a show of one workspace: one name, one call.
      Promise.all(
        [...new Set(workspaces.map((w) => w.organization))].map((name) =>
          ctx.clients.organizations.GetOrganization({ name }, as(request)),
        ),
      )
    : Promise.resolve([]);
  const projectIds = include.has('project')
    ? [...new Set(workspaces.map((w) => w.projectId).filter((id) => id !== ''))]
    : [];
  const projects =
    projectIds.length > 0
      ? ctx.clients.projects.BatchGetProjects({ ids: projectIds }, as(request))
      : Promise.resolve({ projects: [] });
  const workspaceIds = include.has('current_run') ? workspaces.map((w) => w.id) : [];
  const currentRuns =
    workspaceIds.length > 0
      ? ctx.clients.runs.BatchGetCurrentRuns({ workspaceIds }, as(request))
      : Promise.resolve({ runs: [] });
  // Added in a fixed order (organization, projects, runs), whichever answer comes first.
  const [orgs, { projects: found }, { runs }] = await Promise.all([organizations, projects, currentRuns]);
  included.add(
    orgs.flatMap(({ organization }) => (organization ? [serializeOrganization(organization)] : [])),
  );
  included.add(found.map((p) => serializeProject(p, request.principal)));
  included.add(runs.map(serializeRun));
  return include.has('current_run') ? new Map(runs.map((r) => [r.workspaceId, r.id])) : undefined;
}
