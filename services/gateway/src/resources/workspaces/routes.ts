import type { FastifyRequest } from 'fastify';
import { RequestDocument } from '../../jsonapi/body.js';
import { refuseInclude } from '../../jsonapi/include.js';
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
        querystring: listQuery([], { 'search[name]': 'Workspaces whose name contains this text.' }),
        response: { 200: listDocument(WORKSPACE) },
      }),
    },
    async (request, reply) => {
      const query = queryOf(request);
      const page = parsePage(query);
      refuseInclude(query.include);
      const { org } = paramsOf<'org'>(request);
      const res = await clients.workspaces.ListWorkspaces(
        { organization: org, page, searchName: query['search[name]'] },
        as(request),
      );
      return sendDocument(reply, 200, {
        data: res.workspaces.map((x) => serializeWorkspace(x, request.principal)),
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

  app.get(
    '/workspaces/:id',
    {
      schema: schema('workspaces', {
        summary: 'Show a workspace',
        params: IdParams,
        querystring: query({}, { include: [] }),
        response: { 200: resourceDocument(WORKSPACE) },
      }),
    },
    async (request, reply) => {
      refuseInclude(queryOf(request).include);
      const ws = (await clients.workspaces.GetWorkspace({ id: paramsOf<'id'>(request).id }, as(request)))
        .workspace!;
      return sendDocument(reply, 200, { data: serializeWorkspace(ws, request.principal) });
    },
  );

  app.get(
    '/organizations/:org/workspaces/:name',
    {
      schema: schema('workspaces', {
        summary: 'Show a workspace by organization and name',
        params: NameParams,
        querystring: query({}, { include: [] }),
        response: { 200: resourceDocument(WORKSPACE) },
      }),
    },
    async (request, reply) => {
      refuseInclude(queryOf(request).include);
      return sendDocument(reply, 200, { data: serializeWorkspace(await byName(request), request.principal) });
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
