import type { runsV1 } from '@policyhub/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { invalidAttribute } from '@policyhub/errors';
import { RequestDocument } from '../../jsonapi/body.js';
import { Included, single } from '../../jsonapi/document.js';
import { parseInclude } from '../../jsonapi/include.js';
import { type PageInfo, parsePage } from '../../jsonapi/pagination.js';
import {
  type Api,
  type RouteContext,
  as,
  paramsOf,
  queryOf,
  readAfterVisibilityCheck,
  sendDocument,
  pageDocument,
} from '../../route-context.js';
import { includeRunWorkspaces } from './included.js';
import { TASK_STAGE } from '../task-stages/schema.js';
import { serializeTaskStage } from '../task-stages/serializer.js';
import { WORKSPACE } from '../workspaces/schema.js';
import { RUN } from './schema.js';
import { serializeRun } from './serializer.js';
import {
  IdParams,
  NoContent,
  OrgParams,
  listDocument,
  listQuery,
  query,
  resourceDocument,
  schema,
} from '../../schemas/common.js';
import { describedAttribute } from '../../schemas/jsonapi.js';
import { readOverrideComment } from '../policy-checks/override-body.js';
import { validBody } from '../../schemas/validation.js';

const RUN_INCLUDES = ['workspace'] as const;
/** Showing one run can also include its task stages (the Terraform CLI asks for them). */
const RUN_SHOW_INCLUDES = ['workspace', 'task_stages'] as const;

/** Upstream's run list parameters, honoured on both lists (a comma list is any of its words). */
const RUN_FILTERS = {
  'filter[status]': 'Comma-separated run statuses: runs in any of them.',
  'filter[operation]': 'Comma-separated operations (plan_only, plan_and_apply, …): runs of any of them.',
  'filter[source]': 'Comma-separated sources; every run here is tfe-api.',
  'search[user]': 'The VCS user of the run; runs here carry none, so any value matches nothing.',
  'search[commit]': 'The VCS commit of the run; runs here carry none, so any value matches nothing.',
  'search[basic]': 'Runs whose id or message contains this text (case-insensitive).',
};

const commaList = (raw: string | undefined): string[] =>
  (raw ?? '')
    .split(',')
    .map((word) => word.trim())
    .filter(Boolean);

const runFilter = (query: Record<string, string | undefined>) => ({
  statuses: commaList(query['filter[status]']),
  operations: commaList(query['filter[operation]']),
  sources: commaList(query['filter[source]']),
  user: query['search[user]'] || undefined,
  commit: query['search[commit]'] || undefined,
  basic: query['search[basic]'] || undefined,
});

/**
 * The optional comment of a run action: no body, `{"comment": "…"}` or `{"data": {"attributes":
 * {"comment": "…"}}}`, read by the same rules as an override's justification.
 */
const ACTION_BODY = describedAttribute('An optional comment, recorded with the run event.', {
  type: ['object', 'null'],
  properties: {
    comment: { type: ['string', 'null'] },
    data: {
      type: ['object', 'null'],
      properties: {
        attributes: { type: ['object', 'null'], properties: { comment: { type: ['string', 'null'] } } },
      },
    },
  },
});

const ACTIONS = {
  cancel: {
    summary: 'Cancel a run in progress (pending, policy_checking or post_plan_running)',
    call: 'CancelRun',
  },
  discard: {
    summary:
      'Discard a waiting run (pending, planned, policy_checked, policy_override, post_plan_awaiting_decision or post_plan_completed)',
    call: 'DiscardRun',
  },
  'force-cancel': {
    summary: 'Force-cancel a run (never applicable here: a cancel ends the run at once; 409)',
    call: 'ForceCancelRun',
  },
} as const;

/** Runs (supporting endpoints, ADR 0016): create, show, list a workspace's runs. */
export function registerRunRoutes(app: Api, ctx: RouteContext): void {
  const { clients } = ctx;

  app.post(
    '/runs',
    {
      schema: schema('runs', {
        summary: 'Create a run',
        body: RUN.body({ create: true }),
        response: { 201: resourceDocument(RUN) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      // Other linkage clients send (variables, ...) is outside this product: ignored.
      const doc = new RequestDocument(validBody(request));
      const message = doc.nullableString('message') ?? '';
      const planOnly = doc.boolean('plan-only') ?? false;
      const isDestroy = doc.boolean('is-destroy') ?? false;
      const workspaceId = doc.relationshipId('workspace');
      const configurationVersionId = doc.relationshipId('configuration-version');
      if (!workspaceId) {
        throw invalidAttribute(
          'GATEWAY_INVALID_BODY',
          '/data/relationships/workspace',
          'Workspace is required',
        );
      }
      const { run } = await clients.runs.CreateRun(
        { workspaceId, message, planOnly, isDestroy, configurationVersionId },
        as(request),
      );
      return sendDocument(reply, 201, { data: serializeRun(run!) });
    },
  );

  app.get(
    '/runs/:id',
    {
      schema: schema('runs', {
        summary: 'Show a run',
        params: IdParams,
        querystring: query({}, { include: RUN_SHOW_INCLUDES }),
        response: { 200: resourceDocument(RUN, { included: [WORKSPACE, TASK_STAGE] }) },
      }),
    },
    async (request, reply) => {
      const include = parseInclude(queryOf(request).include, RUN_SHOW_INCLUDES);
      const { run } = await clients.runs.GetRun({ id: paramsOf<'id'>(request).id }, as(request));
      const included = include.size > 0 ? new Included() : undefined;
      if (included && include.has('workspace')) await includeRunWorkspaces(ctx, request, [run!], included);
      if (included && include.has('task_stages') && run!.taskStageIds.length > 0) {
        const { taskStages } = await clients.taskStages.BatchGetTaskStages(
          { ids: run!.taskStageIds },
          as(request),
        );
        included.add(taskStages.map(serializeTaskStage));
      }
      return sendDocument(reply, 200, single(serializeRun(run!), included));
    },
  );

  app.get(
    '/workspaces/:id/runs',
    {
      schema: schema('runs', {
        summary: "List a workspace's runs",
        params: IdParams,
        querystring: listQuery(RUN_INCLUDES, RUN_FILTERS),
        response: { 200: listDocument(RUN, { included: [WORKSPACE] }) },
      }),
    },
    async (request, reply) => {
      const query = queryOf(request);
      const include = parseInclude(query.include, RUN_INCLUDES);
      const page = parsePage(query);
      const { id } = paramsOf<'id'>(request);
      const res = await clients.runs.ListWorkspaceRuns(
        { workspaceId: id, page, filter: runFilter(query) },
        as(request),
      );
      return sendRunPage(ctx, request, reply, res, include);
    },
  );

  app.get(
    '/organizations/:org/runs',
    {
      schema: schema('runs', {
        summary: "List the runs of an organization's workspaces",
        params: OrgParams,
        querystring: listQuery(RUN_INCLUDES, RUN_FILTERS),
        response: { 200: listDocument(RUN, { included: [WORKSPACE] }) },
      }),
    },
    async (request, reply) => {
      const query = queryOf(request);
      const include = parseInclude(query.include, RUN_INCLUDES);
      const page = parsePage(query);
      const { org } = paramsOf<'org'>(request);
      // An organization the caller cannot see is a 404, also for site admins when it does not exist.
      await clients.organizations.GetOrganization({ name: org }, as(request));
      const res = await clients.runs.ListOrganizationRuns(
        { organization: org, page, filter: runFilter(query) },
        as(request),
      );
      return sendRunPage(ctx, request, reply, res, include);
    },
  );

  for (const [action, { summary, call }] of Object.entries(ACTIONS)) {
    app.post(
      `/runs/:id/actions/${action}`,
      {
        schema: schema('runs', {
          summary,
          params: IdParams,
          body: ACTION_BODY,
          response: { 202: NoContent },
        }),
        attachValidation: true,
      },
      async (request, reply) => {
        const { id } = paramsOf<'id'>(request);
        // A run the caller cannot see is a 404 even with a bad body; a bad body changes nothing.
        const comment = await readAfterVisibilityCheck(
          () => readOverrideComment(validBody(request)),
          () => clients.runs.GetRun({ id }, as(request)),
        );
        await clients.runs[call]({ runId: id, comment }, as(request));
        return reply.status(202).send();
      },
    );
  }
}

/** A page of runs, with their workspaces when `include` asks for them (one call for all). */
async function sendRunPage(
  ctx: RouteContext,
  request: FastifyRequest,
  reply: FastifyReply,
  res: { runs: runsV1.Run__Output[]; page?: PageInfo | null | undefined },
  include: ReadonlySet<string>,
) {
  const included = include.size > 0 ? new Included() : undefined;
  if (included) await includeRunWorkspaces(ctx, request, res.runs, included);
  return sendDocument(reply, 200, {
    data: res.runs.map(serializeRun),
    ...(included ? { included: included.toArray() } : {}),
    ...pageDocument(ctx, request, res.page!),
  });
}
