import { unauthenticated } from '@policyhub/errors';
import { createLogger } from '@policyhub/telemetry';
import { waitFor } from '@policyhub/testing';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import type { Clients } from '../src/clients/index.js';
import { MemoryRateLimiter } from '../src/rate-limit/memory-rate-limiter.js';
import type { RateLimiter } from '../src/rate-limit/rate-limiter.js';
import { RedisRateLimiter } from '../src/rate-limit/redis-rate-limiter.js';
import { connectRedis, isolatedPrefix, SKIP_REDIS } from './support/redis.js';

const RATE_LIMITED = {
  errors: [{ detail: "You have exceeded the API's rate limit.", status: '429', title: 'Too many requests' }],
};
const logger = createLogger('gateway-test', 'silent');
/** Long enough that a test can never straddle two windows, so counts alone decide. */
const WINDOW_MS = 60_000;

describe('the in-memory rate limiter', () => {
  it('allows the limit within a window, refuses the next request, and counts down what remains', async () => {
    const limiter = new MemoryRateLimiter({ limit: 3, windowMs: WINDOW_MS });
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.consume('token:a'));
    expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(decisions.every((d) => d.limit === 3 && d.resetMs > 0 && d.resetMs <= WINDOW_MS)).toBe(true);
  });

  it('keeps one budget per key', async () => {
    const limiter = new MemoryRateLimiter({ limit: 1, windowMs: WINDOW_MS });
    expect((await limiter.consume('token:a')).allowed).toBe(true);
    expect((await limiter.consume('token:a')).allowed).toBe(false);
    expect((await limiter.consume('token:b')).allowed).toBe(true);
    expect((await limiter.consume('ip:127.0.0.1')).allowed).toBe(true);
  });

  it('gives the whole budget back when the window ends', async () => {
    let now = 1_000_000;
    const limiter = new MemoryRateLimiter({ limit: 2, windowMs: 1_000, now: () => now });
    await limiter.consume('k');
    await limiter.consume('k');
    expect((await limiter.consume('k')).allowed).toBe(false);
    now += 999;
    const late = await limiter.consume('k');
    expect([late.allowed, late.resetMs]).toEqual([false, 1]);
    now += 1;
    expect(await limiter.consume('k')).toEqual({ allowed: true, limit: 2, remaining: 1, resetMs: 1_000 });
  });

  it('rejects a limit that is not a positive integer', () => {
    expect(() => new MemoryRateLimiter({ limit: 0 })).toThrow(/positive integer/);
    expect(() => new MemoryRateLimiter({ limit: 2.5 })).toThrow(/positive integer/);
  });
});

describe.skipIf(SKIP_REDIS)('the Redis rate limiter', () => {
  let redis: Redis;
  const keys = isolatedPrefix();
  beforeAll(() => {
    redis = connectRedis();
  });
  afterAll(async () => {
    await keys.clean(redis);
    await redis.quit();
  });

  it('allows the limit within a window and refuses the next request', async () => {
    const limiter = new RedisRateLimiter(redis, { limit: 3, windowMs: WINDOW_MS, keyPrefix: keys.prefix });
    const allowed = [];
    for (let i = 0; i < 4; i++) allowed.push((await limiter.consume('token:a')).allowed);
    expect(allowed).toEqual([true, true, true, false]);
    const refused = await limiter.consume('token:a');
    expect(refused).toMatchObject({ allowed: false, limit: 3, remaining: 0 });
    expect(refused.resetMs).toBeGreaterThan(0);
    expect(refused.resetMs).toBeLessThanOrEqual(WINDOW_MS);
  });

  it('keeps one budget per key', async () => {
    const limiter = new RedisRateLimiter(redis, { limit: 1, windowMs: WINDOW_MS, keyPrefix: keys.prefix });
    expect((await limiter.consume('token:b')).allowed).toBe(true);
    expect((await limiter.consume('token:b')).allowed).toBe(false);
    expect((await limiter.consume('token:c')).allowed).toBe(true);
  });

  it('shares one budget between gateway replicas', async () => {
    const other = connectRedis();
    try {
      const a = new RedisRateLimiter(redis, { limit: 2, windowMs: WINDOW_MS, keyPrefix: keys.prefix });
      const b = new RedisRateLimiter(other, { limit: 2, windowMs: WINDOW_MS, keyPrefix: keys.prefix });
      expect((await a.consume('token:shared')).allowed).toBe(true);
      expect((await b.consume('token:shared')).allowed).toBe(true);
      expect((await a.consume('token:shared')).allowed).toBe(false);
      expect((await b.consume('token:shared')).allowed).toBe(false);
    } finally {
      await other.quit();
    }
  });

  it('stores counters only for the length of their window', async () => {
    const limiter = new RedisRateLimiter(redis, { limit: 1, windowMs: WINDOW_MS, keyPrefix: keys.prefix });
    await limiter.consume('token:ttl');
    const ttl = await redis.pttl(`${keys.prefix}rate:token:ttl`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(WINDOW_MS);
  });

  it('gives the whole budget back once the window has expired', async () => {
    const limiter = new RedisRateLimiter(redis, { limit: 1, windowMs: 200, keyPrefix: keys.prefix });
    expect((await limiter.consume('token:expiring')).allowed).toBe(true);
    expect((await limiter.consume('token:expiring')).allowed).toBe(false);
    await waitFor(async () => (await redis.exists(`${keys.prefix}rate:token:expiring`)) === 0);
    expect(await limiter.consume('token:expiring')).toMatchObject({ allowed: true, remaining: 0 });
  });
});

/** The gateway with nothing behind it but a stub identity service that rejects every token. */
async function gatewayWith(rateLimiter: RateLimiter | undefined) {
  const authentications = { count: 0 };
  const clients = {
    identity: {
      Authenticate: async () => {
        authentications.count += 1;
        throw unauthenticated();
      },
    },
  } as unknown as Clients;
  const app = await buildApp({ clients, logger, rateLimiter });
  return { app, authentications };
}

const limiters: Array<[string, (limit: number) => RateLimiter, boolean]> = [
  ['in memory', (limit) => new MemoryRateLimiter({ limit, windowMs: WINDOW_MS }), false],
  [
    'in Redis',
    (limit) => new RedisRateLimiter(sharedRedis!, { limit, windowMs: WINDOW_MS, keyPrefix: httpKeys.prefix }),
    SKIP_REDIS,
  ],
];
let sharedRedis: Redis | undefined;
const httpKeys = isolatedPrefix();
beforeAll(() => {
  if (!SKIP_REDIS) sharedRedis = connectRedis();
});
afterAll(async () => {
  if (!sharedRedis) return;
  await httpKeys.clean(sharedRedis);
  await sharedRedis.quit();
});

describe.each(limiters)('rate limiting at the HTTP edge, %s', (_name, makeLimiter, skip) => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it.skipIf(skip)('answers the 31st request of a token inside one window with upstream’s 429', async () => {
    ({ app } = await gatewayWith(makeLimiter(30)));
    const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
    const ping = () => fetch(`${baseUrl}/api/v2/ping`, { headers: { authorization: 'Bearer token-31st' } });

    for (let i = 1; i <= 30; i++) {
      const res = await ping();
      expect(res.status).toBe(204);
      expect(res.headers.get('x-ratelimit-limit')).toBe('30');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(30 - i));
    }
    const limited = await ping();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toContain('application/vnd.api+json');
    expect(limited.headers.get('x-ratelimit-limit')).toBe('30');
    const reset = Number(limited.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(0);
    expect(reset).toBeLessThanOrEqual(WINDOW_MS / 1000);
    expect(await limited.json()).toEqual(RATE_LIMITED);
  });

  it.skipIf(skip)('meters each token on its own, and anonymous callers by address', async () => {
    ({ app } = await gatewayWith(makeLimiter(2)));
    const ping = (headers: Record<string, string>, remoteAddress = '10.0.0.1') =>
      app!.inject({ method: 'GET', url: '/api/v2/ping', headers, remoteAddress });
    const statuses = async (headers: Record<string, string>, remoteAddress?: string) => [
      (await ping(headers, remoteAddress)).statusCode,
      (await ping(headers, remoteAddress)).statusCode,
      (await ping(headers, remoteAddress)).statusCode,
    ];
    expect(await statuses({ authorization: 'Bearer token-one' })).toEqual([204, 204, 429]);
    expect(await statuses({ authorization: 'Bearer token-two' })).toEqual([204, 204, 429]);
    expect(await statuses({}, '10.0.0.1')).toEqual([204, 204, 429]);
    expect(await statuses({}, '10.0.0.2')).toEqual([204, 204, 429]);
    // The same token from another address is still the same caller.
    expect((await ping({ authorization: 'Bearer token-one' }, '10.0.0.9')).statusCode).toBe(429);
  });

  it.skipIf(skip)('refuses a flood before it costs an authentication call', async () => {
    const gateway = await gatewayWith(makeLimiter(3));
    app = gateway.app;
    const statuses = [];
    for (let i = 0; i < 6; i++) {
      const res = await app.inject({
        method: 'GET',
        url: '/api/v2/account/details',
        headers: { authorization: 'Bearer not-a-real-token' },
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
    expect(gateway.authentications.count).toBe(3);
  });

  it.skipIf(skip)('leaves the health, readiness and metrics endpoints unmetered', async () => {
    ({ app } = await gatewayWith(makeLimiter(1)));
    for (let i = 0; i < 3; i++) {
      for (const url of ['/healthz', '/readyz', '/metrics']) {
        const res = await app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(200);
        expect(res.headers['x-ratelimit-limit'], url).toBeUndefined();
      }
    }
  });
});

describe('rate limiting switched off or unavailable', () => {
  it('sends no rate-limit headers and never answers 429 without a limiter (RATE_LIMIT_PER_SECOND=0)', async () => {
    const { app } = await gatewayWith(undefined);
    try {
      for (let i = 0; i < 40; i++) {
        const res = await app.inject({ method: 'GET', url: '/api/v2/ping' });
        expect(res.statusCode).toBe(204);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      }
    } finally {
      await app.close();
    }
  });

  it('lets requests through when the limiter’s store fails', async () => {
    const broken: RateLimiter = {
      limit: 1,
      windowMs: WINDOW_MS,
      consume: async () => {
        throw new Error('connection refused');
      },
      close: async () => {},
    };
    const { app } = await gatewayWith(broken);
    try {
      const res = await app.inject({ method: 'GET', url: '/api/v2/ping' });
      expect(res.statusCode).toBe(204);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    } finally {
      await app.close();
    }
  });
});
