import type { FastifyInstance } from 'fastify';
import { RequestDocument } from '../../jsonapi/body.js';
import { type RouteContext, as, paramsOf, sendDocument } from '../../route-context.js';
import { serializeToken, serializeUser } from './serializer.js';

export function registerUserRoutes(app: FastifyInstance, { clients }: RouteContext): void {
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

  app.get('/account/details', async (request, reply) => {
    const user = await clients.identity.GetAccountDetails({}, as(request));
    return sendDocument(reply, 200, { data: serializeUser(user) });
  });
}
