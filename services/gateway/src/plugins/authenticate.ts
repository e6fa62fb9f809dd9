import { createHash } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { type Principal, principalFromProto } from '@policyhub/grpc-runtime';
import { fromTimestamp } from '@policyhub/contracts';
import { AppError, unauthenticated } from '@policyhub/errors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PrincipalCache } from '../auth/principal-cache.js';
import type { Clients } from '../clients/index.js';
import { isGrpcError } from '../errors/http-errors.js';
import type { AuthFailureGuard } from './rate-limit.js';

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

/** admin-orgs did not know the token (or knows it as revoked). */
const isFailedAuthentication = (err: unknown): boolean =>
  (err instanceof AppError && err.kind === 'unauthenticated') ||
  (isGrpcError(err) && (err as grpc.ServiceError).code === grpc.status.UNAUTHENTICATED);

/**
 * Authenticates `Authorization: Bearer <token>` through admin-orgs (cached briefly by token hash)
 * and leaves the principal on the request; 401 when absent or unknown. With a `failures` guard, a
 * token that is not cached is looked up only while its client address has failures to spare.
 */
export function registerAuthentication(
  app: FastifyInstance,
  clients: Clients,
  cache: PrincipalCache,
  failures?: AuthFailureGuard,
): void {
  app.decorateRequest('principal', undefined as unknown as Principal);
  app.decorateRequest('tokenHash', '');

  app.addHook('preHandler', async (request: FastifyRequest, reply) => {
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
    if (failures) await failures.refuseIfExhausted(request, reply);
    const res = await clients.identity.Authenticate({ token: match[1]! }).catch(async (err: unknown) => {
      if (failures && isFailedAuthentication(err)) await failures.recordFailure(request);
      throw err;
    });
    const principal = principalFromProto(res.principal!);
    // A token that expires is not served from the cache past its expiry.
    await cache.set(tokenHash, principal, fromTimestamp(res.principal!.tokenExpiredAt)?.getTime());
    request.principal = principal;
  });

  // Before the response leaves, so the caller's next request already sees the new permissions.
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.routeOptions.config?.changesAccess && reply.statusCode < 400) await cache.invalidateAll();
    return payload;
  });
}
