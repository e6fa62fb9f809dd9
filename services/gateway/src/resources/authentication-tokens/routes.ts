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
import type { FastifyRequest } from 'fastify';
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
import { AUTHENTICATION_TOKEN } from './schema.js';
import { serializeToken } from './serializer.js';

/** A user's API tokens: create (the value is shown once), list, show, revoke. Tagged `users`. */
export function registerAuthenticationTokenRoutes(app: Api, ctx: RouteContext): void {
  const { clients } = ctx;

  // The token value is in this response only; admin-orgs keeps its SHA-256.
  app.post(
    '/users/:id/authentication-tokens',
    {
      schema: schema('users', {
        summary: 'Create an authentication token (its value is in this response only)',
        params: IdParams,
        body: AUTHENTICATION_TOKEN.body({
          create: true,
          allowEmptyType: true,
          description: 'Optional: a body-less POST creates a token without a description.',
        }),
        response: { 201: resourceDocument(AUTHENTICATION_TOKEN) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      // A body-less POST creates a token without a description.
      const doc = new RequestDocument(request.body == null ? undefined : validBody(request));
      const description = doc.string('description');
      const expiredAt = doc.nullableString('expired-at') ?? undefined;
      const created = await clients.identity.CreateAuthenticationToken(
        { userId: paramsOf<'id'>(request).id, description, expiredAt },
        as(request),
      );
      return sendDocument(reply, 201, { data: serializeToken(created.authenticationToken!, created.token) });
    },
  );

  // A user's tokens (the user themself or a site admin): never their secret values.
  app.get(
    '/users/:id/authentication-tokens',
    {
      schema: schema('users', {
        summary: "List a user's authentication tokens",
        params: IdParams,
        querystring: listQuery([]),
        response: { 200: listDocument(AUTHENTICATION_TOKEN) },
      }),
    },
    async (request, reply) => {
      const page = parsePage(queryOf(request));
      refuseInclude(queryOf(request).include);
      const res = await clients.identity.ListAuthenticationTokens(
        { userId: paramsOf<'id'>(request).id, page },
        as(request),
      );
      return sendDocument(reply, 200, {
        data: res.tokens.map((t) => serializeToken(t)),
        ...pageDocument(ctx, request, res.page!),
      });
    },
  );

  app.get(
    '/authentication-tokens/:id',
    {
      schema: schema('users', {
        summary: 'Show an authentication token',
        params: IdParams,
        querystring: query({}, { include: [] }),
        response: { 200: resourceDocument(AUTHENTICATION_TOKEN) },
      }),
    },
    async (request, reply) => {
      refuseInclude(queryOf(request).include);
      const authenticationToken = (
        await clients.identity.GetAuthenticationToken({ id: paramsOf<'id'>(request).id }, as(request))
      ).authenticationToken!;
      return sendDocument(reply, 200, { data: serializeToken(authenticationToken) });
    },
  );

  // Revocation: cached principals are dropped before the answer leaves (changesAccess), so the
  // token fails on this gateway at once and on every replica sharing the Redis cache.
  app.delete(
    '/authentication-tokens/:id',
    {
      config: { changesAccess: true },
      schema: schema('users', {
        summary: 'Revoke an authentication token',
        params: IdParams,
        response: { 204: NoContent },
      }),
    },
    async (request, reply) => {
      await clients.identity.DeleteAuthenticationToken({ id: paramsOf<'id'>(request).id }, as(request));
      return sendNoContent(reply);
    },
  );

  registerOwnedTokenRoutes(app, ctx);
}

/** Upstream's create body: optional, typed `authentication-token` (docs) or `authentication-tokens`. */
const ownedTokenBody = (owner: string) =>
  AUTHENTICATION_TOKEN.body({
    create: true,
    allowEmptyType: true,
    alsoTypes: ['authentication-token'],
    description: `Optional: a body-less POST creates ${owner} token that never expires.`,
  });

/**
 * A team's token and an organization's token (upstream's team and organization token APIs): one
 * each; POST replaces the previous one, which stops authenticating at once (changesAccess drops
 * cached principals, as for a revocation). The value is in the POST response only.
 */
function registerOwnedTokenRoutes(app: Api, ctx: RouteContext): void {
  const { clients } = ctx;
  const options = (request: FastifyRequest) => {
    const doc = new RequestDocument(request.body == null ? undefined : validBody(request));
    return {
      description: doc.string('description'),
      expiredAt: doc.nullableString('expired-at') ?? undefined,
    };
  };

  app.post(
    '/teams/:id/authentication-token',
    {
      config: { changesAccess: true },
      schema: schema('teams', {
        summary: "Create (or replace) a team's token (its value is in this response only)",
        params: IdParams,
        body: ownedTokenBody('a team'),
        response: { 201: resourceDocument(AUTHENTICATION_TOKEN) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const created = await clients.identity.CreateTeamToken(
        { teamId: paramsOf<'id'>(request).id, ...options(request) },
        as(request),
      );
      return sendDocument(reply, 201, { data: serializeToken(created.authenticationToken!, created.token) });
    },
  );

  app.get(
    '/teams/:id/authentication-token',
    {
      schema: schema('teams', {
        summary: "Show a team's token (never its value)",
        params: IdParams,
        response: { 200: resourceDocument(AUTHENTICATION_TOKEN) },
      }),
    },
    async (request, reply) => {
      const { authenticationToken } = await clients.identity.GetTeamToken(
        { teamId: paramsOf<'id'>(request).id },
        as(request),
      );
      return sendDocument(reply, 200, { data: serializeToken(authenticationToken!) });
    },
  );

  app.delete(
    '/teams/:id/authentication-token',
    {
      config: { changesAccess: true },
      schema: schema('teams', {
        summary: "Revoke a team's token",
        params: IdParams,
        response: { 204: NoContent },
      }),
    },
    async (request, reply) => {
      await clients.identity.DeleteTeamToken({ teamId: paramsOf<'id'>(request).id }, as(request));
      return sendNoContent(reply);
    },
  );

  app.post(
    '/organizations/:org/authentication-token',
    {
      config: { changesAccess: true },
      schema: schema('organizations', {
        summary: "Create (or replace) an organization's token (its value is in this response only)",
        params: OrgParams,
        body: ownedTokenBody('an organization'),
        response: { 201: resourceDocument(AUTHENTICATION_TOKEN) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const created = await clients.identity.CreateOrganizationToken(
        { organization: paramsOf<'org'>(request).org, ...options(request) },
        as(request),
      );
      return sendDocument(reply, 201, { data: serializeToken(created.authenticationToken!, created.token) });
    },
  );

  app.get(
    '/organizations/:org/authentication-token',
    {
      schema: schema('organizations', {
        summary: "Show an organization's token (never its value)",
        params: OrgParams,
        response: { 200: resourceDocument(AUTHENTICATION_TOKEN) },
      }),
    },
    async (request, reply) => {
      const { authenticationToken } = await clients.identity.GetOrganizationToken(
        { organization: paramsOf<'org'>(request).org },
        as(request),
      );
      return sendDocument(reply, 200, { data: serializeToken(authenticationToken!) });
    },
  );

  app.delete(
    '/organizations/:org/authentication-token',
    {
      config: { changesAccess: true },
      schema: schema('organizations', {
        summary: "Revoke an organization's token",
        params: OrgParams,
        response: { 204: NoContent },
      }),
    },
    async (request, reply) => {
      await clients.identity.DeleteOrganizationToken(
        { organization: paramsOf<'org'>(request).org },
        as(request),
      );
      return sendNoContent(reply);
    },
  );
}
