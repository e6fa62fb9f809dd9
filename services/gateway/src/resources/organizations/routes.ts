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
import { ORGANIZATION } from './schema.js';
import { serializeOrganization } from './serializer.js';
import {
  NoContent,
  listDocument,
  listQuery,
  params,
  query,
  resourceDocument,
  schema,
} from '../../schemas/common.js';
import { validBody } from '../../schemas/validation.js';

export function registerOrganizationRoutes(app: Api, ctx: RouteContext): void {
  const { clients } = ctx;

  app.post(
    '/organizations',
    {
      config: { changesAccess: true },
      schema: schema('organizations', {
        summary: 'Create an organization',
        body: ORGANIZATION.body({ create: true }),
        response: { 201: resourceDocument(ORGANIZATION) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const doc = new RequestDocument(validBody(request));
      const name = doc.string('name');
      const email = doc.string('email');
      const org = (await clients.organizations.CreateOrganization({ name, email }, as(request)))
        .organization!;
      return sendDocument(reply, 201, { data: serializeOrganization(org) });
    },
  );

  app.get(
    '/organizations',
    {
      schema: schema('organizations', {
        summary: 'List the organizations the caller belongs to',
        querystring: listQuery([]),
        response: { 200: listDocument(ORGANIZATION) },
      }),
    },
    async (request, reply) => {
      const query = queryOf(request);
      const page = parsePage(query);
      refuseInclude(query.include);
      const res = await clients.organizations.ListOrganizations({ page }, as(request));
      return sendDocument(reply, 200, {
        data: res.organizations.map(serializeOrganization),
        ...pageDocument(ctx, request, res.page!),
      });
    },
  );

  app.get(
    '/organizations/:name',
    {
      schema: schema('organizations', {
        summary: 'Show an organization',
        params: params('name'),
        querystring: query({}, { include: [] }),
        response: { 200: resourceDocument(ORGANIZATION) },
      }),
    },
    async (request, reply) => {
      refuseInclude(queryOf(request).include);
      const org = (
        await clients.organizations.GetOrganization({ name: paramsOf<'name'>(request).name }, as(request))
      ).organization!;
      return sendDocument(reply, 200, { data: serializeOrganization(org) });
    },
  );

  app.patch(
    '/organizations/:name',
    {
      config: { changesAccess: true },
      schema: schema('organizations', {
        summary: 'Update an organization',
        params: params('name'),
        body: ORGANIZATION.body({ create: false }),
        response: { 200: resourceDocument(ORGANIZATION) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const { name } = paramsOf<'name'>(request);
      // An unknown organization is a 404 even with a bad body (looked up only when the body is bad).
      const { newName, email } = await readAfterVisibilityCheck(
        () => {
          const doc = new RequestDocument(validBody(request));
          const newName = doc.string('name');
          const email = doc.string('email');
          return { newName, email };
        },
        () => clients.organizations.GetOrganization({ name }, as(request)),
      );
      const org = (await clients.organizations.UpdateOrganization({ name, newName, email }, as(request)))
        .organization!;
      return sendDocument(reply, 200, { data: serializeOrganization(org) });
    },
  );

  app.delete(
    '/organizations/:name',
    {
      config: { changesAccess: true },
      schema: schema('organizations', {
        summary: 'Delete an organization',
        params: params('name'),
        response: { 204: NoContent },
      }),
    },
    async (request, reply) => {
      await clients.organizations.DeleteOrganization({ name: paramsOf<'name'>(request).name }, as(request));
      return sendNoContent(reply);
    },
  );
}
