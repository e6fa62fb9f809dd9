import type { adminorgsV1 } from '@policyhub/contracts';
import { AppError } from '@policyhub/errors';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readIdentifierList } from '../../jsonapi/body.js';
import type { ResourceObject } from '../../jsonapi/document.js';
import { parseInclude, refuseInclude } from '../../jsonapi/include.js';
import { parsePage } from '../../jsonapi/pagination.js';
import {
  type Api,
  type Query,
  type RouteContext,
  as,
  readAfterVisibilityCheck,
  paramsOf,
  queryOf,
  sendDocument,
  sendNoContent,
  pageDocument,
} from '../../route-context.js';
import { serializeUser } from '../users/serializer.js';
import { readAdminOrganizationUpdate, readRegistryPartnerships } from './request-bodies.js';
import { serializeAdminOrganization } from './serializer.js';
import {
  NoContent,
  listDocument,
  listQuery,
  params,
  query,
  resourceDocument,
  schema,
} from '../../schemas/common.js';
import { identifierListBody } from '../../schemas/jsonapi.js';
import { closed } from '../../schemas/resources.js';
import { validBody } from '../../schemas/validation.js';
import { REGISTRY_PARTNERSHIPS } from './request-bodies.js';
import { ADMIN_ORGANIZATION } from './schema.js';
import { USER } from '../users/schema.js';

const INCLUDES = ['owners'] as const;

const count = Type.Integer({ minimum: 0 });
/** `meta.status-counts` of the admin list: organizations matching the query, by state. */
const STATUS_COUNTS = closed({ total: count, active: count, disabled: count });

/** `filter[…]=true|false` exactly; absent or empty means no filter, anything else is a 422. */
function booleanFilter(query: Query, name: string): boolean | undefined {
  const raw = query[name];
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new AppError('invalid', 'GATEWAY_INVALID_FILTER', [
    { title: 'invalid attribute', detail: `${name} must be true or false`, parameter: name },
  ]);
}

/**
 * The site-admin organization API (self-hosted installations). admin-orgs answers NOT_FOUND to
 * anyone but a site admin, so non-admins get 404 everywhere, including for unknown names.
 */
export function registerAdminOrganizationRoutes(app: Api, ctx: RouteContext): void {
  const { clients } = ctx;

  /** The owners of every listed organization, fetched in one batch call. */
  const ownersOf = async (
    request: FastifyRequest,
    orgs: adminorgsV1.Organization__Output[],
  ): Promise<ResourceObject[]> => {
    const ids = [...new Set(orgs.flatMap((o) => o.ownerIds))];
    if (ids.length === 0) return [];
    const { users } = await clients.identity.BatchGetUsers({ ids }, as(request));
    return users.map(serializeUser);
  };

  const consumerList =
    (registry: 'module-consumers' | 'provider-consumers') =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const query = queryOf(request);
      const page = parsePage(query);
      refuseInclude(query.include);
      const { name } = paramsOf<'name'>(request);
      const req = { name, page };
      const res =
        registry === 'module-consumers'
          ? await clients.adminOrganizations.ListModuleConsumers(req, as(request))
          : await clients.adminOrganizations.ListProviderConsumers(req, as(request));
      return sendDocument(reply, 200, {
        data: res.organizations.map(serializeAdminOrganization),
        ...pageDocument(ctx, request, res.page!),
      });
    };

  app.get(
    '/admin/organizations',
    {
      schema: schema('admin-organizations', {
        summary: 'List organizations (site admins)',
        querystring: listQuery(INCLUDES, {
          q: 'Organizations whose name or owner email contains this text.',
          'q[name]': 'Organizations whose name contains this text.',
          'q[email]': 'Organizations with an owner whose email contains this text.',
          'filter[module_producer]': 'true or false.',
          'filter[provider_producer]': 'true or false.',
        }),
        response: {
          200: listDocument(ADMIN_ORGANIZATION, {
            included: [USER],
            meta: { 'status-counts': STATUS_COUNTS },
          }),
        },
      }),
    },
    async (request, reply) => {
      const query = queryOf(request);
      const page = parsePage(query);
      const include = parseInclude(query.include, INCLUDES);
      const res = await clients.adminOrganizations.ListAdminOrganizations(
        {
          page,
          query: query.q,
          queryName: query['q[name]'],
          queryEmail: query['q[email]'],
          moduleProducer: booleanFilter(query, 'filter[module_producer]'),
          providerProducer: booleanFilter(query, 'filter[provider_producer]'),
        },
        as(request),
      );
      const { links, meta } = pageDocument(ctx, request, res.page!);
      const counts = res.statusCounts;
      return sendDocument(reply, 200, {
        data: res.organizations.map(serializeAdminOrganization),
        ...(include.has('owners') ? { included: await ownersOf(request, res.organizations) } : {}),
        links,
        meta: {
          'status-counts': {
            total: counts?.total ?? 0,
            active: counts?.active ?? 0,
            disabled: counts?.disabled ?? 0,
          },
          ...meta,
        },
      });
    },
  );

  app.get(
    '/admin/organizations/:name',
    {
      schema: schema('admin-organizations', {
        summary: 'Show an organization (site admins)',
        params: params('name'),
        querystring: query({}, { include: INCLUDES }),
        response: { 200: resourceDocument(ADMIN_ORGANIZATION, { included: [USER] }) },
      }),
    },
    async (request, reply) => {
      const include = parseInclude(queryOf(request).include, INCLUDES);
      const org = (
        await clients.adminOrganizations.GetAdminOrganization(
          { name: paramsOf<'name'>(request).name },
          as(request),
        )
      ).organization!;
      return sendDocument(reply, 200, {
        data: serializeAdminOrganization(org),
        ...(include.has('owners') ? { included: await ownersOf(request, [org]) } : {}),
      });
    },
  );

  app.patch(
    '/admin/organizations/:name',
    {
      config: { changesAccess: true },
      schema: schema('admin-organizations', {
        summary: 'Update an organization (site admins)',
        params: params('name'),
        body: ADMIN_ORGANIZATION.body({ create: false, allowEmptyType: true }),
        response: { 200: resourceDocument(ADMIN_ORGANIZATION) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const { name } = paramsOf<'name'>(request);
      // An unknown organization is a 404 even with a bad body (looked up only when the body is bad).
      const update = await readAfterVisibilityCheck(
        () => readAdminOrganizationUpdate(validBody(request), name),
        () => clients.adminOrganizations.GetAdminOrganization({ name }, as(request)),
      );
      const org = (await clients.adminOrganizations.UpdateAdminOrganization(update, as(request)))
        .organization!;
      return sendDocument(reply, 200, { data: serializeAdminOrganization(org) });
    },
  );

  app.delete(
    '/admin/organizations/:name',
    {
      config: { changesAccess: true },
      schema: schema('admin-organizations', {
        summary: 'Delete an organization (site admins)',
        params: params('name'),
        response: { 204: NoContent },
      }),
    },
    async (request, reply) => {
      await clients.adminOrganizations.DeleteAdminOrganization(
        { name: paramsOf<'name'>(request).name },
        as(request),
      );
      return sendNoContent(reply);
    },
  );

  app.get(
    '/admin/organizations/:name/relationships/module-consumers',
    {
      schema: schema('admin-organizations', {
        summary: 'Organizations that may consume its private modules',
        params: params('name'),
        querystring: listQuery([]),
        response: { 200: listDocument(ADMIN_ORGANIZATION) },
      }),
    },
    consumerList('module-consumers'),
  );
  app.get(
    '/admin/organizations/:name/relationships/provider-consumers',
    {
      schema: schema('admin-organizations', {
        summary: 'Organizations that may consume its private providers',
        params: params('name'),
        querystring: listQuery([]),
        response: { 200: listDocument(ADMIN_ORGANIZATION) },
      }),
    },
    consumerList('provider-consumers'),
  );

  app.patch(
    '/admin/organizations/:name/relationships/module-consumers',
    {
      schema: schema('admin-organizations', {
        summary: 'Replace the module consumers',
        params: params('name'),
        body: identifierListBody('organizations'),
        response: { 204: NoContent },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const { name } = paramsOf<'name'>(request);
      const consumers = await readAfterVisibilityCheck(
        () => readIdentifierList(validBody(request)),
        () => clients.adminOrganizations.GetAdminOrganization({ name }, as(request)),
      );
      await clients.adminOrganizations.UpdateModuleConsumers({ name, consumers }, as(request));
      return sendNoContent(reply);
    },
  );

  app.put(
    '/admin/organizations/:name/registry-partnerships',
    {
      schema: schema('admin-organizations', {
        summary: 'Replace module and/or provider consumers by name',
        params: params('name'),
        body: REGISTRY_PARTNERSHIPS,
        response: { 204: NoContent },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const { name } = paramsOf<'name'>(request);
      const partnerships = await readAfterVisibilityCheck(
        () => readRegistryPartnerships(validBody(request), name),
        () => clients.adminOrganizations.GetAdminOrganization({ name }, as(request)),
      );
      await clients.adminOrganizations.UpdateRegistryPartnerships(partnerships, as(request));
      return sendNoContent(reply);
    },
  );
}
