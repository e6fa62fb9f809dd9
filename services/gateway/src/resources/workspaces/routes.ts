import type { FastifyRequest } from 'fastify';
import { RequestDocument } from '../../jsonapi/body.js';
import { type adminorgsV1, workspaceOrder } from '@policyhub/contracts';
import { badRequest } from '@policyhub/errors';
import { Included, single } from '../../jsonapi/document.js';
import { parseInclude } from '../../jsonapi/include.js';
import { parsePage } from '../../jsonapi/pagination.js';
import {
  type Api,
  type RouteContext,
  as,
  readAfterVisibilityCheck,
  paramsOf,
  queryOf,
  sendDocument,
  sendNoContent,
  pageDocument,
} from '../../route-context.js';
import { WORKSPACE } from './schema.js';
import { serializeWorkspace } from './serializer.js';
import { includeWorkspaceRelations, WORKSPACE_INCLUDES } from './included.js';
import { ORGANIZATION } from '../organizations/schema.js';
import { PROJECT } from '../projects/schema.js';
import { RUN } from '../runs/schema.js';
import { readDescription } from '../projects/description.js';
import {
  IdParams,
  NoContent,
  OrgParams,
  params,
  listDocument,
  listQuery,
  query,
  resourceDocument,
  schema,
} from '../../schemas/common.js';
import { validBody } from '../../schemas/validation.js';

export function registerWorkspaceRoutes(app: Api, ctx: RouteContext): void {
  const { clients } = ctx;

  app.post(
    '/organizations/:org/workspaces',
    {
      schema: schema('workspaces', {
        summary: 'Create a workspace',
        params: OrgParams,
        body: WORKSPACE.body({ create: true }),
        response: { 201: resourceDocument(WORKSPACE) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const doc = new RequestDocument(validBody(request));
      const name = doc.string('name');
      const { description } = readDescription(doc);
      const projectId = doc.relationshipId('project');
      const ws = (
        await clients.workspaces.CreateWorkspace(
          { organization: paramsOf<'org'>(request).org, name, description, projectId },
          as(request),
        )
      ).workspace!;
      return sendDocument(reply, 201, { data: serializeWorkspace(ws, request.principal) });
    },
  );

  app.get(
    '/organizations/:org/workspaces',
    {
      schema: schema('workspaces', {
        summary: "List an organization's workspaces",
        params: OrgParams,
        querystring: listQuery(WORKSPACE_INCLUDES, {
          'search[name]': 'Workspaces whose name contains this text (case-insensitive).',
          'search[wildcard-name]':
            'Workspaces whose name matches this pattern (case-insensitive): a `*` at the start and/or the end stands for any text (`*-prod`, `web-*`, `*app*`); without one the name must match exactly.',
          'filter[project][id]': 'Only the workspaces of this project.',
          sort: `The order: ${workspaceOrder.words.join(', ')} (by name; \`-\` for descending). Default: oldest first. Upstream's \`current-run.created-at\` is a 400: workspaces and runs live in different services, and the list is ordered where the workspaces are.`,
        }),
        response: { 200: listDocument(WORKSPACE, { included: [ORGANIZATION, PROJECT, RUN] }) },
      }),
    },
    async (request, reply) => {
      const query = queryOf(request);
      const page = parsePage(query);
      const include = parseInclude(query.include, WORKSPACE_INCLUDES);
      const order = orderOf(query.sort);
      const { org } = paramsOf<'org'>(request);
      const res = await clients.workspaces.ListWorkspaces(
        {
          organization: org,
          page,
          searchName: query['search[name]'],
          searchWildcardName: query['search[wildcard-name]'] || undefined,
          projectId: query['filter[project][id]'] || undefined,
          order,
        },
        as(request),
      );
      const included = include.size > 0 ? new Included() : undefined;
      const currentRuns = included
        ? await includeWorkspaceRelations(ctx, request, res.workspaces, include, included)
        : undefined;
      return sendDocument(reply, 200, {
        data: res.workspaces.map((x) => serializeWorkspace(x, request.principal, currentRuns)),
        ...(included ? { included: included.toArray() } : {}),
        ...pageDocument(ctx, request, res.page!),
      });
    },
  );

  const readChange = (request: FastifyRequest) => {
    const doc = new RequestDocument(validBody(request));
    const name = doc.string('name');
    const description = readDescription(doc);
    const projectId = doc.relationshipId('project');
    return { name, projectId, ...description };
  };
  const update = async (request: FastifyRequest, id: string, change: ReturnType<typeof readChange>) => {
    const ws = (await clients.workspaces.UpdateWorkspace({ id, ...change }, as(request))).workspace!;
    return serializeWorkspace(ws, request.principal);
  };
  // Upstream addresses a workspace by id or by organization and name; both answer the same document.
  const byName = async (request: FastifyRequest) => {
    const { org, name } = paramsOf<'org' | 'name'>(request);
    return (await clients.workspaces.GetWorkspace({ id: '', organization: org, name }, as(request)))
      .workspace!;
  };

  const showDocument = async (
    request: FastifyRequest,
    ws: adminorgsV1.Workspace__Output,
    include: ReadonlySet<string>,
  ) => {
    const included = include.size > 0 ? new Included() : undefined;
    const currentRuns = included
      ? await includeWorkspaceRelations(ctx, request, [ws], include, included)
      : undefined;
    return single(serializeWorkspace(ws, request.principal, currentRuns), included);
  };

  app.get(
    '/workspaces/:id',
    {
      schema: schema('workspaces', {
        summary: 'Show a workspace',
        params: IdParams,
        querystring: query({}, { include: WORKSPACE_INCLUDES }),
        response: { 200: resourceDocument(WORKSPACE, { included: [ORGANIZATION, PROJECT, RUN] }) },
      }),
    },
    async (request, reply) => {
      const include = parseInclude(queryOf(request).include, WORKSPACE_INCLUDES);
      const ws = (await clients.workspaces.GetWorkspace({ id: paramsOf<'id'>(request).id }, as(request)))
        .workspace!;
      return sendDocument(reply, 200, await showDocument(request, ws, include));
    },
  );

  app.get(
    '/organizations/:org/workspaces/:name',
    {
      schema: schema('workspaces', {
        summary: 'Show a workspace by organization and name',
        params: NameParams,
        querystring: query({}, { include: WORKSPACE_INCLUDES }),
        response: { 200: resourceDocument(WORKSPACE, { included: [ORGANIZATION, PROJECT, RUN] }) },
      }),
    },
    async (request, reply) => {
      const include = parseInclude(queryOf(request).include, WORKSPACE_INCLUDES);
      return sendDocument(reply, 200, await showDocument(request, await byName(request), include));
    },
  );

  app.patch(
    '/workspaces/:id',
    {
      schema: schema('workspaces', {
        summary: 'Update a workspace',
        params: IdParams,
        body: WORKSPACE.body({ create: false }),
        response: { 200: resourceDocument(WORKSPACE) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const { id } = paramsOf<'id'>(request);
      const change = await readAfterVisibilityCheck(
        () => readChange(request),
        () => clients.workspaces.GetWorkspace({ id }, as(request)),
      );
      return sendDocument(reply, 200, { data: await update(request, id, change) });
    },
  );

  app.patch(
    '/organizations/:org/workspaces/:name',
    {
      schema: schema('workspaces', {
        summary: 'Update a workspace by organization and name',
        params: NameParams,
        body: WORKSPACE.body({ create: false }),
        response: { 200: resourceDocument(WORKSPACE) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const { id } = await byName(request);
      return sendDocument(reply, 200, { data: await update(request, id, readChange(request)) });
    },
  );

  app.delete(
    '/workspaces/:id',
    {
      schema: schema('workspaces', {
        summary: 'Delete a workspace',
        params: IdParams,
        response: { 204: NoContent },
      }),
    },
    async (request, reply) => {
      await clients.workspaces.DeleteWorkspace({ id: paramsOf<'id'>(request).id }, as(request));
      return sendNoContent(reply);
    },
  );

  app.delete(
    '/organizations/:org/workspaces/:name',
    {
      schema: schema('workspaces', {
        summary: 'Delete a workspace by organization and name',
        params: NameParams,
        response: { 204: NoContent },
      }),
    },
    async (request, reply) => {
      const { id } = await byName(request);
      await clients.workspaces.DeleteWorkspace({ id }, as(request));
      return sendNoContent(reply);
    },
  );
}

const NameParams = params('org', 'name');

/**
 * The `sort` of a workspace list: upstream's `name` (`-name` descending). Upstream's other key,
 * `current-run.created-at`, and any unknown one are refused naming the parameter: a client that
 * asked for an order must not take another one for it.
 */
function orderOf(sort: string | undefined): adminorgsV1.WorkspaceOrder | undefined {
  if (sort === undefined || sort === '') return undefined;
  const order = workspaceOrder.fromWord(sort);
  if (order !== undefined) return order;
  throw badRequest(
    'GATEWAY_UNSUPPORTED_PARAMETER',
    `Unsupported sort: ${sort.slice(0, 100)} (supported here: ${workspaceOrder.words.join(', ')})`,
    'sort',
  );
}
