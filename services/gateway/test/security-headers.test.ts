import { unauthenticated } from '@policyhub/errors';
import { createLogger } from '@policyhub/telemetry';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import type { Clients } from '../src/clients/index.js';

const TOKEN = 'ph.a-valid-token';
const logger = createLogger('gateway-test', 'silent');

/**
 * The gateway with a stub identity service (no admin-orgs runs in these unit tests): it knows
 * TOKEN and nothing else. The e2e suite checks the same headers on a whole running system.
 */
const build = (publicUrl?: string) =>
  buildApp({
    clients: {
      identity: {
        Authenticate: async ({ token }: { token: string }) => {
          if (token !== TOKEN) throw unauthenticated();
          return { principal: { userId: 'u1', username: 'alice', isSiteAdmin: false, memberships: [] } };
        },
      },
    } as unknown as Clients,
    logger,
    publicUrl,
    rateLimits: { requestsPerWindow: 3, windowMs: 60_000, authFailures: 0 },
  });

const expectApiHeaders = (res: LightMyRequestResponse, what: string) => {
  expect(res.headers['x-content-type-options'], what).toBe('nosniff');
  expect(res.headers['x-frame-options'], what).toBe('DENY');
  expect(res.headers['referrer-policy'], what).toBe('no-referrer');
  expect(res.headers['content-security-policy'], what).toBe("default-src 'none'; frame-ancestors 'none'");
  expect(res.headers['cache-control'], what).toBe('no-store');
};

describe('security headers on every response of the API', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await build();
  });
  afterAll(async () => {
    await app.close();
  });

  it('are sent with successes and with every kind of error', async () => {
    const as = (token: string) => ({ authorization: `Bearer ${token}` });
    const cases: Array<[string, Promise<LightMyRequestResponse>, number]> = [
      ['ping', app.inject({ method: 'GET', url: '/api/v2/ping', remoteAddress: '10.0.0.1' }), 204],
      [
        'no token',
        app.inject({ method: 'GET', url: '/api/v2/account/details', remoteAddress: '10.0.0.2' }),
        401,
      ],
      [
        'unknown token',
        app.inject({ method: 'GET', url: '/api/v2/account/details', headers: as('ph.nope') }),
        401,
      ],
      ['unknown route', app.inject({ method: 'GET', url: '/api/v2/nowhere', headers: as(TOKEN) }), 404],
      [
        'malformed JSON',
        app.inject({
          method: 'POST',
          url: '/api/v2/organizations',
          headers: { ...as(`${TOKEN}`), 'content-type': 'application/vnd.api+json' },
          remoteAddress: '10.0.0.3',
          payload: '{"data":',
        }),
        400,
      ],
      // Router errors, answered before any hook runs.
      ['bad percent-encoding', app.inject({ method: 'GET', url: '/api/v2/organizations/%E0%A4%A' }), 400],
      [
        'path segment too long',
        app.inject({ method: 'GET', url: `/api/v2/organizations/${'a'.repeat(400)}` }),
        414,
      ],
    ];
    for (const [what, response, status] of cases) {
      const res = await response;
      expect(res.statusCode, what).toBe(status);
      expectApiHeaders(res, what);
      expect(res.headers['strict-transport-security'], what).toBeUndefined();
    }
    // The request budget is 3: the fourth ping from one address is refused, with the headers.
    for (let i = 0; i < 2; i++)
      await app.inject({ method: 'GET', url: '/api/v2/ping', remoteAddress: '10.0.0.1' });
    const limited = await app.inject({ method: 'GET', url: '/api/v2/ping', remoteAddress: '10.0.0.1' });
    expect(limited.statusCode).toBe(429);
    expectApiHeaders(limited, '429');
  });

  it('include Strict-Transport-Security when the public URL is https', async () => {
    const secure = await build('https://policyhub.example.com/');
    try {
      const res = await secure.inject({ method: 'GET', url: '/api/v2/ping' });
      expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      expectApiHeaders(res, 'https ping');
      const denied = await secure.inject({ method: 'GET', url: '/api/v2/account/details' });
      expect(denied.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    } finally {
      await secure.close();
    }
  });
});
