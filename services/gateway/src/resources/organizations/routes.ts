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
import { serializeOrganization } from './serializer.js';

export function registerOrganizationRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const { clients } = ctx;

  app.post('/organizations', { config: { changesAccess: true } }, async (request, reply) => {
    const doc = new RequestDocument(request.body, 'organizations');
    const name = doc.string('name', { required: true, maxLength: 200 });
    const email = doc.string('email', { required: true, maxLength: 254 });
    doc.done();
    const org = await clients.organizations.CreateOrganization({ name, email }, as(request));
    return sendDocument(reply, 201, { data: serializeOrganization(org) });
  });

  app.get('/organizations', async (request, reply) => {
    const query = queryOf(request);
    const page = parsePage(query);
    refuseInclude(query.include);
    const res = await clients.organizations.ListOrganizations({ page }, as(request));
    return sendDocument(reply, 200, {
      data: res.organizations.map(serializeOrganization),
      ...pageDocument(ctx, request, res.page!),
    });
  });

  app.get('/organizations/:name', async (request, reply) => {
    refuseInclude(queryOf(request).include);
    const org = await clients.organizations.GetOrganization(
      { name: paramsOf<'name'>(request).name },
      as(request),
    );
    return sendDocument(reply, 200, { data: serializeOrganization(org) });
  });

  app.patch('/organizations/:name', { config: { changesAccess: true } }, async (request, reply) => {
    const { name } = paramsOf<'name'>(request);
    // Look the organization up first: an unknown one is a 404 even with a bad body.
    await clients.organizations.GetOrganization({ name }, as(request));
    const doc = new RequestDocument(request.body, 'organizations');
    const newName = doc.string('name', { maxLength: 200 });
    const email = doc.string('email', { maxLength: 254 });
    doc.done();
    const org = await clients.organizations.UpdateOrganization({ name, newName, email }, as(request));
    return sendDocument(reply, 200, { data: serializeOrganization(org) });
  });

  app.delete('/organizations/:name', { config: { changesAccess: true } }, async (request, reply) => {
    await clients.organizations.DeleteOrganization({ name: paramsOf<'name'>(request).name }, as(request));
    return sendNoContent(reply);
  });
}
