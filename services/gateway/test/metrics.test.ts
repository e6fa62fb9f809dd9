import { createLogger } from '@policyhub/telemetry';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import type { Clients } from '../src/clients/index.js';
import { MemoryRateLimiter } from '../src/rate-limit/memory-rate-limiter.js';

/** `<name>{<labels>} <value>` from a Prometheus exposition, or undefined. */
function sample(exposition: string, name: string, labels: string): number | undefined {
  const line = exposition.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('the gateway /metrics endpoint', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildApp({
      clients: {} as Clients,
      logger: createLogger('gateway-test', 'silent'),
      rateLimiter: new MemoryRateLimiter({ limit: 2, windowMs: 60_000 }),
    });
  });
  afterAll(async () => {
    await app.close();
  });

  it('serves the Prometheus text format', async () => {
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toContain('# TYPE policyhub_http_request_duration_seconds histogram');
    expect(res.body).toContain('# TYPE policyhub_rpc_duration_seconds histogram');
    expect(res.body).toContain('# TYPE policyhub_outbox_pending_events gauge');
    expect(res.body).toContain('# TYPE policyhub_consumer_lag_seconds gauge');
  });

  it('counts each request by method, route pattern and status, errors included', async () => {
    const ping = 'method="GET",route="/api/v2/ping",status="204"';
    const limited = 'method="GET",route="/api/v2/ping",status="429"';
    const before = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    for (let i = 0; i < 3; i++)
      await app.inject({ method: 'GET', url: '/api/v2/ping', remoteAddress: '10.1.1.1' });
    await app.inject({ method: 'GET', url: '/api/v2/no-such-route', remoteAddress: '10.1.1.2' });

    const after = (await app.inject({ method: 'GET', url: '/metrics' })).body;
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
