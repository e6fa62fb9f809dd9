import type { runsV1 } from '@policyhub/contracts';
import type { FastifyRequest } from 'fastify';
import type { Included } from '../../jsonapi/document.js';
import { type RouteContext, as } from '../../route-context.js';
import { serializeWorkspace } from '../workspaces/serializer.js';
import { serializeRun } from './serializer.js';

/** Adds the runs with these ids to `included`, in one batch call (never one call per item). */
export async function includeRuns(
  ctx: RouteContext,
  request: FastifyRequest,
  ids: readonly string[],
  included: Included,
) {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const { runs } = await ctx.clients.runs.BatchGetRuns({ ids: unique }, as(request));
  included.add(runs.map(serializeRun));
  return runs;
}

/** Adds the workspaces of these runs to `included`, in one batch call. */
export async function includeRunWorkspaces(
  ctx: RouteContext,
  request: FastifyRequest,
  runs: readonly runsV1.Run__Output[],
  included: Included,
) {
  const ids = [...new Set(runs.map((r) => r.workspaceId))];
  if (ids.length === 0) return;
  const { workspaces } = await ctx.clients.workspaces.BatchGetWorkspaces({ ids }, as(request));
  included.add(workspaces.map((x) => serializeWorkspace(x, request.principal)));
}
