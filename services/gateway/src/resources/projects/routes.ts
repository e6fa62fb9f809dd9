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
import { serializeProject } from './serializer.js';

export function registerProjectRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const { clients } = ctx;

  app.post('/organizations/:org/projects', async (request, reply) => {
    const doc = new RequestDocument(request.body, 'projects');
    const name = doc.string('name', { required: true, maxLength: 200 });
    const description = doc.nullableString('description', { maxLength: 1000 }) ?? '';
    doc.done();
    const project = await clients.projects.CreateProject(
      { organization: paramsOf<'org'>(request).org, name, description },
      as(request),
    );
    return sendDocument(reply, 201, { data: serializeProject(project) });
  });

  app.get('/organizations/:org/projects', async (request, reply) => {
    const query = queryOf(request);
    const page = parsePage(query);
    refuseInclude(query.include);
    const { org } = paramsOf<'org'>(request);
    const res = await clients.projects.ListProjects(
      { organization: org, page, searchName: query['filter[names]'] ?? query.q ?? '' },
      as(request),
    );
    return sendDocument(reply, 200, {
      data: res.projects.map(serializeProject),
      ...pageDocument(ctx, request, res.page!),
    });
  });

  app.get('/projects/:id', async (request, reply) => {
    refuseInclude(queryOf(request).include);
    const project = await clients.projects.GetProject({ id: paramsOf<'id'>(request).id }, as(request));
    return sendDocument(reply, 200, { data: serializeProject(project) });
  });

  app.patch('/projects/:id', async (request, reply) => {
    const { id } = paramsOf<'id'>(request);
    await clients.projects.GetProject({ id }, as(request));
    const doc = new RequestDocument(request.body, 'projects');
    const name = doc.string('name', { maxLength: 200 });
    const description = doc.nullableString('description', { maxLength: 1000 });
    doc.done();
    const project = await clients.projects.UpdateProject(
      { id, name, description: description === null ? '' : description },
      as(request),
    );
    return sendDocument(reply, 200, { data: serializeProject(project) });
  });

  app.delete('/projects/:id', async (request, reply) => {
    await clients.projects.DeleteProject({ id: paramsOf<'id'>(request).id }, as(request));
    return sendNoContent(reply);
  });
}
