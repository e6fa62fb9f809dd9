import { Writable } from 'node:stream';
import type { Principal } from '@policyhub/grpc-runtime';
import { createLogger } from '@policyhub/telemetry';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import type { Clients } from '../src/clients/index.js';

const TOKEN = 'ph.a-bearer-token-that-must-never-be-logged';
const FAILING_TOKEN = 'ph.a-token-whose-lookup-fails-unexpectedly';
const admin: Principal = { userId: 'user-1', username: 'admin', isSiteAdmin: true, memberships: new Map() };

describe('gateway logs', () => {
  const lines: string[] = [];
  let app: FastifyInstance;

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const clients = {
      identity: {
        Authenticate: async ({ token }: { token: string }) => {
          // An unexpected failure that quotes its input, as driver errors sometimes do.
          if (token === FAILING_TOKEN) throw new Error(`lookup failed for ${token}`);
          return { principal: { ...admin, memberships: [] } };
        },
        GetAccountDetails: async () => {
          throw new Error('account service exploded');
        },
      },
    } as unknown as Clients;
    app = await buildApp({
      clients,
      logger: createLogger('gateway', 'trace', destination),
      rateLimits: { requestsPerWindow: 3, windowMs: 60_000, authFailures: 0 },
    });
  });
  afterAll(async () => {
    await app.close();
  });

  it('never contain a bearer token or the Authorization header, whatever the outcome', async () => {
    const as = (token: string) => ({ authorization: `Bearer ${token}` });
    const outcomes = [
      await app.inject({ method: 'GET', url: '/api/v2/ping', headers: as(TOKEN) }),
      await app.inject({ method: 'GET', url: '/api/v2/account/details', headers: as(TOKEN) }),
      await app.inject({ method: 'GET', url: '/api/v2/account/details', headers: as(FAILING_TOKEN) }),
      await app.inject({ method: 'GET', url: `/api/v2/no-such-route?token=${TOKEN}`, headers: as(TOKEN) }),
      await app.inject({ method: 'GET', url: '/api/v2/ping', headers: as(TOKEN) }),
    ].map((r) => r.statusCode);
    expect(outcomes).toEqual([204, 500, 500, 404, 429]);

    expect(lines.length).toBeGreaterThanOrEqual(outcomes.length);
    const text = lines.join('\n');
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(FAILING_TOKEN.slice(3));
    expect(text).toContain('lookup failed for [redacted]');
    expect(text).not.toMatch(/bearer\s+(?!\[redacted\])/i);
    expect(text.toLowerCase()).not.toContain('authorization');
  });

  it('log each request by its route pattern, never its raw URL', async () => {
    const capability = 'capability-0123456789';
    lines.length = 0;
    await app.inject({ method: 'PUT', url: `/api/v2/uploads/${capability}`, payload: 'x' });
    await app.inject({ method: 'GET', url: `/api/v2/plan-logs/${capability}?offset=0&limit=10` });
    const requests = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
    expect(requests.length).toBeGreaterThan(0);
    expect(lines.join('\n')).not.toContain(capability);
  });
});
