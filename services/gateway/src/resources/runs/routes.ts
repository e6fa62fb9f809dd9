import { invalidAttribute } from '@policyhub/errors';
import { RequestDocument } from '../../jsonapi/body.js';
import { Included, single } from '../../jsonapi/document.js';
import { parseInclude } from '../../jsonapi/include.js';
import { parsePage } from '../../jsonapi/pagination.js';
import {
  type Api,
  type RouteContext,
  as,
  paramsOf,
  queryOf,
  sendDocument,
  pageDocument,
} from '../../route-context.js';
import { includeRunWorkspaces } from './included.js';
import { TASK_STAGE } from '../task-stages/schema.js';
import { serializeTaskStage } from '../task-stages/serializer.js';
import { WORKSPACE } from '../workspaces/schema.js';
import { RUN } from './schema.js';
import { serializeRun } from './serializer.js';
import { IdParams, listDocument, listQuery, query, resourceDocument, schema } from '../../schemas/common.js';
import { validBody } from '../../schemas/validation.js';

const RUN_INCLUDES = ['workspace'] as const;
/** Showing one run can also include its task stages (the Terraform CLI asks for them). */
const RUN_SHOW_INCLUDES = ['workspace', 'task_stages'] as const;

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
        { workspaceId, message, planOnly, configurationVersionId },
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
        querystring: listQuery(RUN_INCLUDES),
        response: { 200: listDocument(RUN, { included: [WORKSPACE] }) },
      }),
    },
    async (request, reply) => {
      const query = queryOf(request);
      const include = parseInclude(query.include, RUN_INCLUDES);
      const page = parsePage(query);
      const { id } = paramsOf<'id'>(request);
      const res = await clients.runs.ListWorkspaceRuns({ workspaceId: id, page }, as(request));
      const included = include.size > 0 ? new Included() : undefined;
      if (included) await includeRunWorkspaces(ctx, request, res.runs, included);
      return sendDocument(reply, 200, {
        data: res.runs.map(serializeRun),
        ...(included ? { included: included.toArray() } : {}),
        ...pageDocument(ctx, request, res.page!),
      });
    },
  );
}
