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
import { PROJECT } from './schema.js';
import { serializeProject } from './serializer.js';
import { readDescription } from './description.js';
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
import { validBody } from '../../schemas/validation.js';

export function registerProjectRoutes(app: Api, ctx: RouteContext): void {
  const { clients } = ctx;

  app.post(
    '/organizations/:org/projects',
    {
      schema: schema('projects', {
        summary: 'Create a project',
        params: OrgParams,
        body: PROJECT.body({ create: true }),
        response: { 201: resourceDocument(PROJECT) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const doc = new RequestDocument(validBody(request));
      const name = doc.string('name');
      const { description } = readDescription(doc);
      const project = (
        await clients.projects.CreateProject(
          { organization: paramsOf<'org'>(request).org, name, description },
          as(request),
        )
      ).project!;
      return sendDocument(reply, 201, { data: serializeProject(project, request.principal) });
    },
  );

  app.get(
    '/organizations/:org/projects',
    {
      schema: schema('projects', {
        summary: "List an organization's projects",
        params: OrgParams,
        querystring: listQuery([], {
          'filter[names]': 'Projects whose name contains this text.',
          q: 'Same as filter[names].',
        }),
        response: { 200: listDocument(PROJECT) },
      }),
    },
    async (request, reply) => {
      const query = queryOf(request);
      const page = parsePage(query);
      refuseInclude(query.include);
      const { org } = paramsOf<'org'>(request);
      const res = await clients.projects.ListProjects(
        { organization: org, page, searchName: query['filter[names]'] ?? query.q },
        as(request),
      );
      return sendDocument(reply, 200, {
        data: res.projects.map((x) => serializeProject(x, request.principal)),
        ...pageDocument(ctx, request, res.page!),
      });
    },
  );

  app.get(
    '/projects/:id',
    {
      schema: schema('projects', {
        summary: 'Show a project',
        params: IdParams,
        querystring: query({}, { include: [] }),
        response: { 200: resourceDocument(PROJECT) },
      }),
    },
    async (request, reply) => {
      refuseInclude(queryOf(request).include);
      const project = (await clients.projects.GetProject({ id: paramsOf<'id'>(request).id }, as(request)))
        .project!;
      return sendDocument(reply, 200, { data: serializeProject(project, request.principal) });
    },
  );

  app.patch(
    '/projects/:id',
    {
      schema: schema('projects', {
        summary: 'Update a project',
        params: IdParams,
        body: PROJECT.body({ create: false }),
        response: { 200: resourceDocument(PROJECT) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const { id } = paramsOf<'id'>(request);
      const { name, ...description } = await readAfterVisibilityCheck(
        () => {
          const doc = new RequestDocument(validBody(request));
          const name = doc.string('name');
          const description = readDescription(doc);
          return { name, ...description };
        },
        () => clients.projects.GetProject({ id }, as(request)),
      );
      const project = (await clients.projects.UpdateProject({ id, name, ...description }, as(request)))
        .project!;
      return sendDocument(reply, 200, { data: serializeProject(project, request.principal) });
    },
  );

  app.delete(
    '/projects/:id',
    {
      schema: schema('projects', {
        summary: 'Delete a project',
        params: IdParams,
        response: { 204: NoContent },
      }),
    },
    async (request, reply) => {
      await clients.projects.DeleteProject({ id: paramsOf<'id'>(request).id }, as(request));
      return sendNoContent(reply);
    },
  );
}
