import { createHash } from 'node:crypto';
import fastifyRateLimit, { normalizeIP } from '@fastify/rate-limit';
import { AppError } from '@policyhub/errors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { KEY_PREFIX } from '../redis/create-redis.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Upstream's 429 body, word for word (status as a string, like every error here). */
export const rateLimited = (): AppError =>
  new AppError('rate_limited', 'GATEWAY_RATE_LIMITED', [
    { title: 'Too many requests', detail: "You have exceeded the API's rate limit." },
  ]);

export interface RateLimitOptions {
  /** Requests per bearer token (anonymous: per client address) and window; 0 turns the budget off. */
  requestsPerWindow: number;
  /** Length of a request window in milliseconds (default one second). */
  windowMs?: number;
  /**
   * Failed authentications per client address and failure window; once used up, requests from
   * that address whose token is not already authenticated get 429 without a lookup. 0 turns it off.
   */
  authFailures: number;
  /** Length of a failure window in milliseconds (default one minute). */
  authFailureWindowMs?: number;
  /** Counters shared by every gateway replica (REDIS_URL); without it, this process's memory. */
  redis?: Redis | undefined;
  /** Prefix of the Redis keys (default `policyhub:gateway:`); tests isolate themselves with it. */
  keyPrefix?: string;
}

/** Counts failed authentications per client address, before the lookup that would fail. */
export interface AuthFailureGuard {
  /** Throws upstream's 429 when the request's address has used up its failure budget. */
  refuseIfExhausted(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Counts one failed authentication against the request's address. */
  recordFailure(request: FastifyRequest): Promise<void>;
}

/** The client's address, IPv6 reduced to its /64 (one host usually holds a whole /64). */
const clientAddress = (request: FastifyRequest): string => normalizeIP(request.ip);

/**
 * Whose request budget a request spends: its bearer token (by SHA-256, never the token itself)
 * whether or not the token turns out valid, else the client's address.
 */
export function rateLimitKey(request: FastifyRequest): string {
  const match = BEARER.exec(request.headers.authorization ?? '');
  if (match) return `token:${createHash('sha256').update(match[1]!).digest('hex')}`;
  return `ip:${clientAddress(request)}`;
}

/**
 * `@fastify/rate-limit` at the edge (docs/adr/0010-rate-limiter-and-failed-authentication.md):
 *
 * - a request budget metered on every API route in `onRequest`, before body parsing and
 *   authentication, so a flood costs neither. Responses carry `X-RateLimit-Limit` (clients size
 *   their own limiter from it on ping), `X-RateLimit-Remaining` and `X-RateLimit-Reset` (whole
 *   seconds until the window ends, which clients wait on a 429; `Retry-After` too);
 * - a failed-authentication budget per client address, returned for the authentication hook,
 *   because a new random token per request gets a fresh request budget each time.
 *
 * Counters live in Redis when given one (the plugin's Redis store), else in an LRU in memory. If
 * Redis fails, requests pass unmetered (`skipOnError`); the connection logs the outage, throttled.
 */
export async function registerRateLimiting(
  app: FastifyInstance,
  options: RateLimitOptions,
): Promise<AuthFailureGuard | undefined> {
  const requests = options.requestsPerWindow;
  if (requests <= 0 && options.authFailures <= 0) return undefined;
  await app.register(fastifyRateLimit, {
    // Every route registered after this one is metered, unless the budget is off.
    global: requests > 0,
    max: requests,
    timeWindow: options.windowMs ?? 1_000,
    hook: 'onRequest',
    keyGenerator: rateLimitKey,
    errorResponseBuilder: () => rateLimited(),
    skipOnError: true,
    // In-memory counters: at most this many callers are remembered (least recently seen go first).
    cache: 10_000,
    ...(options.redis ? { redis: options.redis, nameSpace: `${options.keyPrefix ?? KEY_PREFIX}rate:` } : {}),
  });
  if (requests > 0) {
    // The plugin meters routes; a request for no route spends the same budget (same store and key).
    const meter = app.rateLimit();
    app.addHook('onRequest', async (request, reply) => {
      if (request.is404) await meter.call(app, request, reply);
    });
  }
  if (options.authFailures <= 0) return undefined;

  const failures = app.createRateLimit({
    max: options.authFailures,
    timeWindow: options.authFailureWindowMs ?? 60_000,
    keyGenerator: (request) => `auth-failures:${clientAddress(request)}`,
  });
  return {
    async refuseIfExhausted(request, reply) {
      const state = await failures(request, { increment: false });
      if (state.isAllowed || state.remaining > 0) return;
      const reset = String(state.ttlInSeconds);
      reply.header('x-ratelimit-limit', state.max);
      reply.header('x-ratelimit-remaining', 0);
      reply.header('x-ratelimit-reset', reset);
      reply.header('retry-after', reset);
      throw rateLimited();
    },
    async recordFailure(request) {
      await failures(request);
    },
  };
}
