import type { FastifyInstance } from 'fastify';
import { RequestDocument } from '../../jsonapi/body.js';
import { refuseInclude } from '../../jsonapi/include.js';
import { parsePage } from '../../jsonapi/pagination.js';
import {
  type RouteContext,
  as,
  paramsOf,
  queryOf,
  sendDocument,
  sendNoContent,
  pageDocument,
} from '../../route-context.js';
import { serializeWorkspace } from './serializer.js';

export function registerWorkspaceRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const { clients } = ctx;

  app.post('/organizations/:org/workspaces', async (request, reply) => {
    const doc = new RequestDocument(request.body, 'workspaces');
    const name = doc.string('name', { required: true, maxLength: 200 });
    const description = doc.nullableString('description', { maxLength: 1000 }) ?? '';
    const projectId = doc.relationshipId('project', 'projects') ?? '';
    doc.done();
    const ws = await clients.workspaces.CreateWorkspace(
      { organization: paramsOf<'org'>(request).org, name, description, projectId },
      as(request),
    );
    return sendDocument(reply, 201, { data: serializeWorkspace(ws) });
  });

  app.get('/organizations/:org/workspaces', async (request, reply) => {
    const query = queryOf(request);
    const page = parsePage(query);
    refuseInclude(query.include);
    const { org } = paramsOf<'org'>(request);
    const res = await clients.workspaces.ListWorkspaces(
      { organization: org, page, searchName: query['search[name]'] ?? '' },
      as(request),
    );
    return sendDocument(reply, 200, {
      data: res.workspaces.map(serializeWorkspace),
      ...pageDocument(ctx, request, res.page!),
    });
  });

  app.get('/workspaces/:id', async (request, reply) => {
    refuseInclude(queryOf(request).include);
    const ws = await clients.workspaces.GetWorkspace({ id: paramsOf<'id'>(request).id }, as(request));
    return sendDocument(reply, 200, { data: serializeWorkspace(ws) });
  });

  app.patch('/workspaces/:id', async (request, reply) => {
    const { id } = paramsOf<'id'>(request);
    await clients.workspaces.GetWorkspace({ id }, as(request));
    const doc = new RequestDocument(request.body, 'workspaces');
    const name = doc.string('name', { maxLength: 200 });
    const description = doc.nullableString('description', { maxLength: 1000 });
    const projectId = doc.relationshipId('project', 'projects');
    doc.done();
    const ws = await clients.workspaces.UpdateWorkspace(
      { id, name, description: description === null ? '' : description, projectId },
      as(request),
    );
    return sendDocument(reply, 200, { data: serializeWorkspace(ws) });
  });

  app.delete('/workspaces/:id', async (request, reply) => {
    await clients.workspaces.DeleteWorkspace({ id: paramsOf<'id'>(request).id }, as(request));
    return sendNoContent(reply);
  });
}
