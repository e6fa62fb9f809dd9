import { createHash } from 'node:crypto';
import { type Principal, principalOf } from '@policyhub/grpc-runtime';
import { unauthenticated } from '@policyhub/errors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PrincipalCache } from '../auth/principal-cache.js';
import type { Clients } from '../clients/index.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
    tokenHash: string;
  }
  interface FastifyContextConfig {
    /** No token needed (ping, upload capability URLs). */
    isPublic?: boolean;
    /** A successful call changes who may do what: drop cached principals. */
    changesAccess?: boolean;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Authenticates `Authorization: Bearer <token>` through admin-orgs (cached briefly by token hash)
 * and leaves the principal on the request; 401 when absent or unknown.
 */
export function registerAuthentication(app: FastifyInstance, clients: Clients, cache: PrincipalCache): void {
  app.decorateRequest('principal', undefined as unknown as Principal);
  app.decorateRequest('tokenHash', '');

  app.addHook('preHandler', async (request: FastifyRequest) => {
    if (request.routeOptions.config?.isPublic) return;
    const match = BEARER.exec(request.headers.authorization ?? '');
    if (!match) throw unauthenticated();
    const tokenHash = createHash('sha256').update(match[1]!).digest('hex');
    request.tokenHash = tokenHash;
    const cached = await cache.get(tokenHash);
    if (cached) {
      request.principal = cached;
      return;
    }
    const p = await clients.identity.Authenticate({ token: match[1]! });
    const principal = principalOf(
      { userId: p.userId, username: p.username, isSiteAdmin: p.isSiteAdmin },
      p.memberships.map((m) => [m.organization, m.permissions] as const),
    );
    await cache.set(tokenHash, principal);
    request.principal = principal;
  });

  // Before the response leaves, so the caller's next request already sees the new permissions.
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.routeOptions.config?.changesAccess && reply.statusCode < 400) await cache.invalidateAll();
    return payload;
  });
}
