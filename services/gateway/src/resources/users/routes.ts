import { AppError } from '@policyhub/errors';
import { RequestDocument } from '../../jsonapi/body.js';
import { refuseInclude } from '../../jsonapi/include.js';
import { parsePage } from '../../jsonapi/pagination.js';
import {
  type Api,
  type RouteContext,
  as,
  pageDocument,
  paramsOf,
  queryOf,
  sendDocument,
  sendNoContent,
} from '../../route-context.js';
import { registerAuthenticationTokenRoutes } from '../authentication-tokens/routes.js';
import { USER } from './schema.js';
import { serializeUser } from './serializer.js';
import {
  IdParams,
  NoContent,
  listDocument,
  listQuery,
  resourceDocument,
  schema,
} from '../../schemas/common.js';
import { validBody } from '../../schemas/validation.js';

/** `filter[admin]=true|false`; absent or empty means every user, anything else is a 422. */
function adminFilter(raw: string | undefined): boolean | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new AppError('invalid', 'GATEWAY_INVALID_FILTER', [
    { title: 'invalid attribute', detail: 'filter[admin] must be true or false', parameter: 'filter[admin]' },
  ]);
}

/**
 * `is-site-admin`, else upstream's alias `is-admin`, which is read (and so checked: its schema
 * only describes it) only when `is-site-admin` is absent.
 */
function readIsSiteAdmin(doc: RequestDocument): boolean {
  const isSiteAdmin = doc.boolean('is-site-admin');
  if (isSiteAdmin !== undefined) return isSiteAdmin;
  const alias = doc.attributes['is-admin'];
  if (alias === undefined || alias === null) return false;
  if (typeof alias === 'boolean') return alias;
  throw new AppError('invalid', 'GATEWAY_INVALID_BODY', [
    {
      title: 'invalid attribute',
      detail: 'Is admin must be true or false',
      pointer: '/data/attributes/is-admin',
    },
  ]);
}

export function registerUserRoutes(app: Api, ctx: RouteContext): void {
  const { clients } = ctx;
  // Site admins create users.
  app.post(
    '/admin/users',
    {
      schema: schema('users', {
        summary: 'Create a user (site admins)',
        body: USER.body({ create: true }),
        response: { 201: resourceDocument(USER) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const doc = new RequestDocument(validBody(request));
      const username = doc.string('username');
      const email = doc.string('email');
      const isSiteAdmin = readIsSiteAdmin(doc);
      const user = (await clients.identity.CreateUser({ username, email, isSiteAdmin }, as(request))).user!;
      return sendDocument(reply, 201, { data: serializeUser(user) });
    },
  );

  // Site admins list every user: `q` searches username and email, `filter[admin]` narrows.
  app.get(
    '/admin/users',
    {
      schema: schema('users', {
        summary: 'List users (site admins)',
        querystring: listQuery([], {
          q: 'Users whose username or email contains this text.',
          'filter[admin]': 'true: only site admins; false: only the others.',
        }),
        response: { 200: listDocument(USER) },
      }),
    },
    async (request, reply) => {
      const query = queryOf(request);
      const page = parsePage(query);
      refuseInclude(query.include);
      const res = await clients.identity.ListUsers(
        { page, query: query.q, isSiteAdmin: adminFilter(query['filter[admin]']) },
        as(request),
      );
      return sendDocument(reply, 200, {
        data: res.users.map(serializeUser),
        ...pageDocument(ctx, request, res.page!),
      });
    },
  );

  // Deleting a user revokes their tokens and memberships; cached principals are dropped too.
  app.delete(
    '/admin/users/:id',
    {
      config: { changesAccess: true },
      schema: schema('users', {
        summary: 'Delete a user (site admins); their tokens are revoked',
        params: IdParams,
        response: { 204: NoContent },
      }),
    },
    async (request, reply) => {
      await clients.identity.DeleteUser({ id: paramsOf<'id'>(request).id }, as(request));
      return sendNoContent(reply);
    },
  );

  registerAuthenticationTokenRoutes(app, ctx);

  app.get(
    '/account/details',
    {
      schema: schema('users', { summary: 'The calling user', response: { 200: resourceDocument(USER) } }),
    },
    async (request, reply) => {
      const user = (await clients.identity.GetAccountDetails({}, as(request))).user!;
      return sendDocument(reply, 200, { data: serializeUser(user) });
    },
  );
}
