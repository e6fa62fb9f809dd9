import { createHash } from 'node:crypto';
import { AppError } from '@policyhub/errors';
import type { Logger } from '@policyhub/telemetry';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RateLimitDecision, RateLimiter } from '../rate-limit/rate-limiter.js';
import { throttled } from '../redis/create-redis.js';
import { OPS_PATHS } from './edge.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Upstream's 429 body, word for word (status as a string, like every error here). */
export const rateLimited = (): AppError =>
  new AppError('rate_limited', 'GATEWAY_RATE_LIMITED', [
    { title: 'Too many requests', detail: "You have exceeded the API's rate limit." },
  ]);

/**
 * Whose budget a request spends: its bearer token (by SHA-256, never the token itself) whether
 * or not the token turns out valid, else the client's address.
 */
export function rateLimitKey(request: FastifyRequest): string {
  const match = BEARER.exec(request.headers.authorization ?? '');
  if (match) return `token:${createHash('sha256').update(match[1]!).digest('hex')}`;
  return `ip:${request.ip}`;
}

/**
 * Meters every API request (ops endpoints excepted) before anything else runs, so a flood costs
 * neither body parsing nor an authentication call. Sends `X-RateLimit-Limit` (clients size their
 * own limiter from it on ping), `X-RateLimit-Remaining`, and `X-RateLimit-Reset` (seconds until
 * the window ends, which clients wait on a 429). If the limiter's store is down, requests pass.
 */
export function registerRateLimiting(app: FastifyInstance, limiter: RateLimiter, logger: Logger): void {
  const warn = throttled(10_000);
  app.addHook('onRequest', async (request, reply) => {
    if (OPS_PATHS.has(request.routeOptions.url ?? '')) return;
    let decision: RateLimitDecision;
    try {
      decision = await limiter.consume(rateLimitKey(request));
    } catch (err) {
      if (warn())
        logger.warn({ err: (err as Error).message }, 'rate limiter unavailable; requests are not metered');
      return;
    }
    reply.header('X-RateLimit-Limit', String(decision.limit));
    reply.header('X-RateLimit-Remaining', String(decision.remaining));
    reply.header('X-RateLimit-Reset', (decision.resetMs / 1000).toFixed(3));
    if (!decision.allowed) throw rateLimited();
  });
}
