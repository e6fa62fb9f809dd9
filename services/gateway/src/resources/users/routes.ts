import { AppError } from '@policyhub/errors';
import type { FastifyInstance } from 'fastify';
import { RequestDocument } from '../../jsonapi/body.js';
import { refuseInclude } from '../../jsonapi/include.js';
import { parsePage } from '../../jsonapi/pagination.js';
import {
  type RouteContext,
  as,
  pageDocument,
  paramsOf,
  queryOf,
  sendDocument,
  sendNoContent,
} from '../../route-context.js';
import { serializeToken, serializeUser } from './serializer.js';

/** `filter[admin]=true|false`; absent or empty means every user, anything else is a 422. */
function adminFilter(raw: string | undefined): boolean | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new AppError('invalid', 'GATEWAY_INVALID_FILTER', [
    { title: 'invalid attribute', detail: 'filter[admin] must be true or false', parameter: 'filter[admin]' },
  ]);
}

export function registerUserRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const { clients } = ctx;
  // Site admins create users.
  app.post('/admin/users', async (request, reply) => {
    const doc = new RequestDocument(request.body, 'users');
    const username = doc.string('username', { required: true, maxLength: 90 });
    const email = doc.string('email', { required: true, maxLength: 254 });
    const isSiteAdmin = doc.boolean('is-site-admin') ?? doc.boolean('is-admin') ?? false;
    doc.done();
    const user = await clients.identity.CreateUser({ username, email, isSiteAdmin }, as(request));
    return sendDocument(reply, 201, { data: serializeUser(user) });
  });

  // Site admins list every user: `q` searches username and email, `filter[admin]` narrows.
  app.get('/admin/users', async (request, reply) => {
    const query = queryOf(request);
    const page = parsePage(query);
    refuseInclude(query.include);
    const res = await clients.identity.ListUsers(
      { page, query: query.q ?? '', isSiteAdmin: adminFilter(query['filter[admin]']) },
      as(request),
    );
    return sendDocument(reply, 200, {
      data: res.users.map(serializeUser),
      ...pageDocument(ctx, request, res.page!),
    });
  });

  // Deleting a user revokes their tokens and memberships; cached principals are dropped too.
  app.delete('/admin/users/:id', { config: { changesAccess: true } }, async (request, reply) => {
    await clients.identity.DeleteUser({ id: paramsOf<'id'>(request).id }, as(request));
    return sendNoContent(reply);
  });

  // The token value is in this response only; admin-orgs keeps its SHA-256.
  app.post('/users/:id/authentication-tokens', async (request, reply) => {
    const doc = new RequestDocument(
      request.body ?? { data: { type: 'authentication-tokens' } },
      'authentication-tokens',
      {
        allowEmptyType: true,
      },
    );
    const description = doc.string('description', { maxLength: 255 }) ?? '';
    doc.done();
    const token = await clients.identity.CreateAuthenticationToken(
      { userId: paramsOf<'id'>(request).id, description },
      as(request),
    );
    return sendDocument(reply, 201, { data: serializeToken(token) });
  });

  // A user's tokens (the user themself or a site admin): never their secret values.
  app.get('/users/:id/authentication-tokens', async (request, reply) => {
    const page = parsePage(queryOf(request));
    refuseInclude(queryOf(request).include);
    const res = await clients.identity.ListAuthenticationTokens(
      { userId: paramsOf<'id'>(request).id, page },
      as(request),
    );
    return sendDocument(reply, 200, {
      data: res.tokens.map(serializeToken),
      ...pageDocument(ctx, request, res.page!),
    });
  });

  app.get('/authentication-tokens/:id', async (request, reply) => {
    refuseInclude(queryOf(request).include);
    const token = await clients.identity.GetAuthenticationToken(
      { id: paramsOf<'id'>(request).id },
      as(request),
    );
    return sendDocument(reply, 200, { data: serializeToken(token) });
  });

  // Revocation: cached principals are dropped before the answer leaves (changesAccess), so the
  // token fails on this gateway at once and on every replica sharing the Redis cache.
  app.delete('/authentication-tokens/:id', { config: { changesAccess: true } }, async (request, reply) => {
    await clients.identity.DeleteAuthenticationToken({ id: paramsOf<'id'>(request).id }, as(request));
    return sendNoContent(reply);
  });

  app.get('/account/details', async (request, reply) => {
    const user = await clients.identity.GetAccountDetails({}, as(request));
    return sendDocument(reply, 200, { data: serializeUser(user) });
  });
}
