import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { toTimestamp } from '@policyhub/contracts';
import { unauthenticated } from '@policyhub/errors';
import { createLogger } from '@policyhub/telemetry';
import { waitFor } from '@policyhub/testing';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import type { PrincipalCache } from '../src/auth/principal-cache.js';
import type { Clients } from '../src/clients/index.js';
import type { RateLimitOptions } from '../src/plugins/rate-limit.js';
import { createRedis } from '../src/redis/create-redis.js';
import { connectRedis, isolatedPrefix, SKIP_REDIS } from './support/redis.js';

const RATE_LIMITED = {
  errors: [
    {
      detail: "You have exceeded the API's rate limit.",
      status: '429',
      code: 'GATEWAY_RATE_LIMITED',
      title: 'Too many requests',
    },
  ],
};
const logger = createLogger('gateway-test', 'silent');
/** Long enough that a test can never straddle two windows, so counts alone decide. */
const WINDOW_MS = 60_000;
const VALID_TOKEN = 'ph.the-one-token-admin-orgs-knows';
const USER = {
  id: 'user-1',
  username: 'alice',
  email: 'alice@example.com',
  isSiteAdmin: false,
  createdAt: toTimestamp('2026-01-01T00:00:00.000Z'),
};

/**
 * The gateway with nothing behind it but a stub identity service (no admin-orgs runs in these
 * unit tests): it knows VALID_TOKEN and rejects every other token, counting each lookup.
 */
async function gatewayWith(
  rateLimits: RateLimitOptions | undefined,
  log = logger,
  principalCache?: PrincipalCache,
) {
  const authentications = { count: 0 };
  const clients = {
    identity: {
      Authenticate: async ({ token }: { token: string }) => {
        authentications.count += 1;
        if (token !== VALID_TOKEN) throw unauthenticated();
        return {
          principal: { userId: USER.id, username: USER.username, isSiteAdmin: false, memberships: [] },
        };
      },
      GetAccountDetails: async () => ({ user: USER }),
    },
  } as unknown as Clients;
  const app = await buildApp({
    clients,
    logger: log,
    rateLimits,
    ...(principalCache ? { principalCache } : {}),
  });
  return { app, authentications };
}

type Limits = Omit<RateLimitOptions, 'redis' | 'keyPrefix'>;
/** Each store the gateway can keep its counters in: this process's memory, or a shared Redis. */
const stores: Array<[string, (limits: Limits) => RateLimitOptions, boolean]> = [
  ['in memory', (limits) => limits, false],
  ['in Redis', (limits) => ({ ...limits, redis: sharedRedis!, keyPrefix: httpKeys.prefix }), SKIP_REDIS],
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

const requestBudget = (limit: number, windowMs = WINDOW_MS): Limits => ({
  requestsPerWindow: limit,
  windowMs,
  authFailures: 0,
});
const failureBudget = (failures: number, windowMs = WINDOW_MS): Limits => ({
  requestsPerWindow: 0,
  authFailures: failures,
  authFailureWindowMs: windowMs,
});
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe.each(stores)('the request budget at the HTTP edge, %s', (_name, limitsIn, skip) => {
  let apps: FastifyInstance[] = [];
  const start = async (limits: Limits) => {
    const gateway = await gatewayWith(limitsIn(limits));
    apps.push(gateway.app);
    return gateway;
  };
  afterEach(async () => {
    await Promise.all(apps.map((a) => a.close()));
    apps = [];
  });

  it.skipIf(skip)('answers the 31st request of a token inside one window with upstream’s 429', async () => {
    const { app } = await start(requestBudget(30));
    const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
    const ping = () => fetch(`${baseUrl}/api/v2/ping`, { headers: bearer('token-31st') });

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
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    // go-tfe waits this many seconds (parsed as a float) before it retries.
    const reset = Number(limited.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(0);
    expect(reset).toBeLessThanOrEqual(WINDOW_MS / 1000);
    expect(limited.headers.get('retry-after')).toBe(limited.headers.get('x-ratelimit-reset'));
    expect(await limited.json()).toEqual(RATE_LIMITED);
  });

  it.skipIf(skip)('meters each token on its own, and anonymous callers by address', async () => {
    const { app } = await start(requestBudget(2));
    const ping = (headers: Record<string, string>, remoteAddress = '10.0.0.1') =>
      app.inject({ method: 'GET', url: '/api/v2/ping', headers, remoteAddress });
    const statuses = async (headers: Record<string, string>, remoteAddress?: string) => [
      (await ping(headers, remoteAddress)).statusCode,
      (await ping(headers, remoteAddress)).statusCode,
      (await ping(headers, remoteAddress)).statusCode,
    ];
    expect(await statuses(bearer('token-one'))).toEqual([204, 204, 429]);
    expect(await statuses(bearer('token-two'))).toEqual([204, 204, 429]);
    expect(await statuses({}, '10.0.0.1')).toEqual([204, 204, 429]);
    expect(await statuses({}, '10.0.0.2')).toEqual([204, 204, 429]);
    // The same token from another address is still the same caller.
    expect((await ping(bearer('token-one'), '10.0.0.9')).statusCode).toBe(429);
    // One IPv6 host usually holds a whole /64: its addresses share one anonymous budget.
    expect(await statuses({}, '2001:db8:1:2::1')).toEqual([204, 204, 429]);
    expect((await ping({}, '2001:db8:1:2::ffff')).statusCode).toBe(429);
    expect((await ping({}, '2001:db8:1:3::1')).statusCode).toBe(204);
  });

  it.skipIf(skip)('refuses a flood before it costs an authentication call', async () => {
    const gateway = await start(requestBudget(3));
    const statuses = [];
    for (let i = 0; i < 6; i++) {
      const res = await gateway.app.inject({
        method: 'GET',
        url: '/api/v2/account/details',
        headers: bearer('not-a-real-token'),
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
    expect(gateway.authentications.count).toBe(3);
  });

  it.skipIf(skip)('counts requests for routes that do not exist against the same budget', async () => {
    const { app } = await start(requestBudget(2));
    const get = (url: string) => app.inject({ method: 'GET', url, headers: bearer(VALID_TOKEN) });
    expect((await get('/api/v2/no-such-route')).statusCode).toBe(404);
    expect((await get('/api/v2/ping')).statusCode).toBe(204);
    const limited = await get('/api/v2/no-such-route');
    expect([limited.statusCode, limited.json()]).toEqual([429, RATE_LIMITED]);
  });

  it.skipIf(skip)('gives the whole budget back once the window has ended', async () => {
    const { app } = await start(requestBudget(1, 300));
    const ping = async () => (await app.inject({ method: 'GET', url: '/api/v2/ping' })).statusCode;
    expect(await ping()).toBe(204);
    expect(await ping()).toBe(429);
    await waitFor(async () => (await ping()) === 204);
  });
});

describe.skipIf(SKIP_REDIS)('request budgets in Redis', () => {
  let apps: FastifyInstance[] = [];
  const keys = isolatedPrefix();
  afterEach(async () => {
    await Promise.all(apps.map((a) => a.close()));
    apps = [];
  });
  afterAll(async () => {
    await keys.clean(sharedRedis!);
  });

  it('are shared by every gateway replica', async () => {
    const other = connectRedis();
    try {
      const limits = { ...requestBudget(2), keyPrefix: keys.prefix };
      const a = (await gatewayWith({ ...limits, redis: sharedRedis })).app;
      const b = (await gatewayWith({ ...limits, redis: other })).app;
      apps.push(a, b);
      const ping = async (app: FastifyInstance) =>
        (await app.inject({ method: 'GET', url: '/api/v2/ping', headers: bearer('token-shared') }))
          .statusCode;
      expect([await ping(a), await ping(b), await ping(a), await ping(b)]).toEqual([204, 204, 429, 429]);
    } finally {
      await Promise.all(apps.map((a) => a.close()));
      apps = [];
      await other.quit();
    }
  });

  it('keep a counter per token hash, never the token, and only for the length of its window', async () => {
    const token = 'ph.a-token-that-must-not-appear-in-redis';
    const app = (await gatewayWith({ ...requestBudget(5), redis: sharedRedis, keyPrefix: keys.prefix })).app;
    apps.push(app);
    await app.inject({ method: 'GET', url: '/api/v2/ping', headers: bearer(token) });
    const hash = createHash('sha256').update(token).digest('hex');
    const stored = await sharedRedis!.keys(`${keys.prefix}*`);
    expect(stored).toContain(`${keys.prefix}rate:token:${hash}`);
    expect(stored.some((k) => k.includes(token))).toBe(false);
    const ttl = await sharedRedis!.pttl(`${keys.prefix}rate:token:${hash}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(WINDOW_MS);
  });
});

describe.each(stores)('failed authentications per client address, %s', (_name, limitsIn, skip) => {
  let apps: FastifyInstance[] = [];
  const start = async (limits: Limits) => {
    const gateway = await gatewayWith(limitsIn(limits));
    apps.push(gateway.app);
    return gateway;
  };
  afterEach(async () => {
    await Promise.all(apps.map((a) => a.close()));
    apps = [];
  });
  /** A request from `remoteAddress` to a route that needs a token. */
  const details = (app: FastifyInstance, token: string, remoteAddress: string) =>
    app.inject({ method: 'GET', url: '/api/v2/account/details', headers: bearer(token), remoteAddress });

  it.skipIf(skip)(
    'refuse a flood of random tokens with 429 after a bounded number of lookups, while other addresses keep working',
    async () => {
      const FAILURES = 10;
      const CONCURRENCY = 20;
      const gateway = await start(failureBudget(FAILURES));
      const flood = (n: number) =>
        details(gateway.app, `ph.random-${Math.random().toString(36).slice(2)}-${n}`, '10.9.9.9');

      const statuses: number[] = [];
      for (let sent = 0; sent < 600; sent += CONCURRENCY) {
        const batch = await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => flood(sent + i)));
        statuses.push(...batch.map((r) => r.statusCode));
      }
      const count = (status: number) => statuses.filter((s) => s === status).length;
      expect(count(401) + count(429)).toBe(600);
      // Each failure is counted once its lookup has failed, so at most one batch overshoots.
      expect(gateway.authentications.count).toBe(count(401));
      expect(gateway.authentications.count).toBeGreaterThanOrEqual(FAILURES);
      expect(gateway.authentications.count).toBeLessThanOrEqual(FAILURES + CONCURRENCY);

      const limited = await flood(600);
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toEqual(RATE_LIMITED);
      expect(limited.headers['x-ratelimit-limit']).toBe(String(FAILURES));
      expect(limited.headers['x-ratelimit-remaining']).toBe('0');
      const reset = Number(limited.headers['x-ratelimit-reset']);
      expect(reset).toBeGreaterThan(0);
      expect(reset).toBeLessThanOrEqual(WINDOW_MS / 1000);
      expect(limited.headers['retry-after']).toBe(limited.headers['x-ratelimit-reset']);

      const before = gateway.authentications.count;
      const valid = await details(gateway.app, VALID_TOKEN, '10.1.1.1');
      expect(valid.statusCode).toBe(200);
      expect(valid.json().data.attributes.username).toBe('alice');
      expect(gateway.authentications.count).toBe(before + 1);
      // Another address still gets its own failures answered with 401.
      expect((await details(gateway.app, 'ph.a-typo', '10.1.1.2')).statusCode).toBe(401);
    },
  );

  it.skipIf(skip)(
    'let a token already authenticated through, and refuse an unverified one, from the refused address',
    async () => {
      const gateway = await start(failureBudget(2));
      expect((await details(gateway.app, VALID_TOKEN, '10.7.7.7')).statusCode).toBe(200);
      for (const n of [1, 2])
        expect((await details(gateway.app, `ph.bad-${n}`, '10.7.7.7')).statusCode).toBe(401);
      expect((await details(gateway.app, 'ph.bad-3', '10.7.7.7')).statusCode).toBe(429);
      // The principal cache still holds the valid token: no lookup, no refusal.
      expect((await details(gateway.app, VALID_TOKEN, '10.7.7.7')).statusCode).toBe(200);
      expect(gateway.authentications.count).toBe(3);
    },
  );

  it.skipIf(skip)('count neither missing tokens nor successful authentications', async () => {
    // A principal cache that never hits: every request with a token costs a lookup.
    const forgetful: PrincipalCache = {
      get: async () => undefined,
      set: async () => {},
      invalidateAll: async () => {},
    };
    const gateway = await gatewayWith(limitsIn(failureBudget(2)), logger, forgetful);
    apps.push(gateway.app);
    for (let i = 0; i < 5; i++) {
      const res = await gateway.app.inject({
        method: 'GET',
        url: '/api/v2/account/details',
        remoteAddress: '10.6.6.6',
      });
      expect(res.statusCode).toBe(401);
    }
    expect(gateway.authentications.count).toBe(0);
    for (let i = 0; i < 5; i++)
      expect((await details(gateway.app, VALID_TOKEN, '10.6.6.6')).statusCode).toBe(200);
    expect(gateway.authentications.count).toBe(5);
    // The address has spent none of its two failures.
    expect((await details(gateway.app, 'ph.bad-1', '10.6.6.6')).statusCode).toBe(401);
    expect((await details(gateway.app, 'ph.bad-2', '10.6.6.6')).statusCode).toBe(401);
    expect((await details(gateway.app, 'ph.bad-3', '10.6.6.6')).statusCode).toBe(429);
  });

  it.skipIf(skip)('give the failure budget back once its window has ended', async () => {
    const gateway = await start(failureBudget(1, 300));
    expect((await details(gateway.app, 'ph.bad-1', '10.5.5.5')).statusCode).toBe(401);
    expect((await details(gateway.app, 'ph.bad-2', '10.5.5.5')).statusCode).toBe(429);
    await waitFor(async () => (await details(gateway.app, 'ph.bad-3', '10.5.5.5')).statusCode === 401);
  });
});

describe('behind a reverse proxy (TRUST_PROXY)', () => {
  const details = (app: FastifyInstance, token: string, remoteAddress: string, forwardedFor?: string) =>
    app.inject({
      method: 'GET',
      url: '/api/v2/account/details',
      headers: { ...bearer(token), ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
      remoteAddress,
    });

  it('limits each client the trusted proxy names, and ignores what untrusted callers claim', async () => {
    const clients = {
      identity: {
        Authenticate: async () => {
          throw unauthenticated();
        },
      },
    } as unknown as Clients;
    const app = await buildApp({
      clients,
      logger,
      trustProxy: ['10.0.0.0/8'],
      rateLimits: { requestsPerWindow: 0, authFailures: 2, authFailureWindowMs: WINDOW_MS },
    });
    try {
      const viaProxy = async (client: string, n: number) =>
        (await details(app, `ph.bad-${client}-${n}`, '10.0.0.5', client)).statusCode;
      expect([await viaProxy('203.0.113.7', 1), await viaProxy('203.0.113.7', 2)]).toEqual([401, 401]);
      expect(await viaProxy('203.0.113.7', 3)).toBe(429);
      // Another client behind the same proxy is not affected by the first one's failures.
      expect(await viaProxy('203.0.113.8', 1)).toBe(401);
      // A caller not in TRUST_PROXY cannot move its failures onto a made-up address.
      const direct = async (n: number) =>
        (await details(app, `ph.direct-${n}`, '198.51.100.1', `192.0.2.${n}`)).statusCode;
      expect([await direct(1), await direct(2), await direct(3)]).toEqual([401, 401, 429]);
    } finally {
      await app.close();
    }
  });
});

describe('rate limiting switched off or unavailable', () => {
  it('sends no rate-limit headers and never answers 429 when both budgets are 0', async () => {
    const { app, authentications } = await gatewayWith({ requestsPerWindow: 0, authFailures: 0 });
    try {
      for (let i = 0; i < 40; i++) {
        const res = await app.inject({ method: 'GET', url: '/api/v2/ping' });
        expect(res.statusCode).toBe(204);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
        const denied = await app.inject({
          method: 'GET',
          url: '/api/v2/account/details',
          headers: bearer(`ph.x${i}`),
        });
        expect(denied.statusCode).toBe(401);
      }
      expect(authentications.count).toBe(40);
    } finally {
      await app.close();
    }
  });

  it('lets every request through, and warns now and then, while Redis is unreachable', async () => {
    const lines: string[] = [];
    const log = createLogger(
      'gateway-test',
      'warn',
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(...String(chunk).split('\n').filter(Boolean));
          done();
        },
      }),
    );
    // The production connection settings, pointed at a port nothing listens on.
    const unreachable = createRedis('redis://127.0.0.1:1', log);
    const { app } = await gatewayWith({ requestsPerWindow: 1, authFailures: 1, redis: unreachable }, log);
    try {
      await waitFor(() => lines.some((l) => l.includes('redis unavailable')));
      for (let i = 0; i < 20; i++) {
        expect((await app.inject({ method: 'GET', url: '/api/v2/ping' })).statusCode).toBe(204);
        const res = await app.inject({
          method: 'GET',
          url: '/api/v2/account/details',
          headers: bearer(`ph.y${i}`),
        });
        expect(res.statusCode).toBe(401);
      }
      const warnings = lines.filter((l) => l.includes('redis unavailable'));
      expect(warnings.length).toBeGreaterThanOrEqual(1);
      expect(warnings.length).toBeLessThan(10);
    } finally {
      await app.close();
      unreachable.disconnect();
    }
  });
});
