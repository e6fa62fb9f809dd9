import type { Server } from 'node:http';
import { createLogger, startOpsServer } from '@policyhub/telemetry';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import type { Clients } from '../src/clients/index.js';

/** `<name>{<labels>} <value>` from a Prometheus exposition, or undefined. */
function sample(exposition: string, name: string, labels: string): number | undefined {
  const line = exposition.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

const TOKEN = 'ph.a-valid-token';

/** The gateway (stub identity service: no admin-orgs runs here) and its ops listener, as main.ts starts them. */
describe('the gateway metrics', () => {
  let app: FastifyInstance;
  let ops: Server;
  let opsUrl: string;
  beforeAll(async () => {
    const clients = {
      identity: {
        Authenticate: async () => ({
          principal: { userId: 'u1', username: 'alice', isSiteAdmin: true, memberships: [] },
        }),
      },
    } as unknown as Clients;
    app = await buildApp({
      clients,
      logger: createLogger('gateway-test', 'silent'),
      rateLimits: { requestsPerWindow: 2, windowMs: 60_000, authFailures: 0 },
    });
    ops = await startOpsServer({ port: 0, host: '127.0.0.1', isReady: async () => true });
    opsUrl = `http://127.0.0.1:${(ops.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await app.close();
    ops.close();
  });
  const scrape = async () => {
    const res = await fetch(`${opsUrl}/metrics`);
    expect(res.status).toBe(200);
    return res.text();
  };

  it('are served in the Prometheus text format on the ops listener', async () => {
    const res = await fetch(`${opsUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const body = await res.text();
    expect(body).toContain('# TYPE policyhub_http_request_duration_seconds histogram');
    expect(body).toContain('# TYPE policyhub_rpc_duration_seconds histogram');
    expect(body).toContain('# TYPE policyhub_outbox_pending_events gauge');
    expect(body).toContain('# TYPE policyhub_consumer_lag_seconds gauge');
  });

  it('are not served on the public API port, nor are health and readiness', async () => {
    for (const [i, path] of ['/metrics', '/healthz', '/readyz', '/api/v2/metrics'].entries()) {
      // One caller per path, so the request budget (2) never interferes.
      const anonymous = await app.inject({ method: 'GET', url: path, remoteAddress: `10.2.2.${i}` });
      expect(anonymous.statusCode, path).toBe(401);
      const authenticated = await app.inject({
        method: 'GET',
        url: path,
        headers: { authorization: `Bearer ${TOKEN}-${i}` },
      });
      expect(authenticated.statusCode, path).toBe(404);
      expect(authenticated.json()).toEqual({
        errors: [{ status: '404', code: 'NOT_FOUND', title: 'not found' }],
      });
      for (const res of [anonymous, authenticated]) expect(res.body, path).not.toContain('policyhub_');
    }
  });

  it('count each API request by method, route pattern and status, errors included', async () => {
    const ping = 'method="GET",route="/api/v2/ping",status="204"';
    const limited = 'method="GET",route="/api/v2/ping",status="429"';
    const before = await scrape();
    for (let i = 0; i < 3; i++)
      await app.inject({ method: 'GET', url: '/api/v2/ping', remoteAddress: '10.1.1.1' });
    await app.inject({ method: 'GET', url: '/api/v2/no-such-route', remoteAddress: '10.1.1.2' });

    const after = await scrape();
    const count = 'policyhub_http_request_duration_seconds_count';
    expect((sample(after, count, ping) ?? 0) - (sample(before, count, ping) ?? 0)).toBe(2);
    expect((sample(after, count, limited) ?? 0) - (sample(before, count, limited) ?? 0)).toBe(1);
    // Unknown routes are labelled by no raw URL (it could carry a capability token).
    expect(sample(after, count, 'method="GET",route="unmatched",status="401"')).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'policyhub_http_request_duration_seconds_bucket', `le="+Inf",${ping}`)).toBe(
      sample(after, count, ping),
    );
  });
});
