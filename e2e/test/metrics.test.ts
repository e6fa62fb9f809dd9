import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

let t: TestSystem;
beforeAll(async () => {
  t = await startTestSystem();
});
afterAll(async () => {
  await t?.stop();
});

/** `<name>{<labels>} <value>`, or undefined when that series has never been observed. */
function sample(exposition: string, name: string, labels: string): number | undefined {
  const line = exposition.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** The ops listener (OPS_HOST:OPS_PORT), never the API port. */
const scrape = async (): Promise<string> => {
  const res = await fetch(`${t.system.opsUrl}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
};

describe('Prometheus metrics of the whole system', () => {
  it('are served on the ops listener with health and readiness, and not on the API port', async () => {
    expect(await scrape()).toContain('# TYPE policyhub_http_request_duration_seconds histogram');
    expect((await fetch(`${t.system.opsUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${t.system.opsUrl}/readyz`)).status).toBe(200);
    expect(new URL(t.system.opsUrl).port).not.toBe(new URL(t.system.baseUrl).port);
    for (const path of ['/metrics', '/api/v2/metrics', '/healthz', '/readyz']) {
      // Without a token the API port says 401 to any path it does not serve publicly; with one, 404.
      const anonymous = await t.anonymous.get(`${t.system.baseUrl}${path}`);
      const admin = await t.admin.get(`${t.system.baseUrl}${path}`);
      expect([anonymous.status, admin.status], path).toEqual([401, 404]);
      expect(anonymous.text + admin.text, path).not.toContain('policyhub_');
    }
  });

  it('count HTTP requests by route and the RPCs they made by gRPC method and status', async () => {
    const before = await scrape();
    await createOrganization(t, 'metered');
    const after = await scrape();

    const created = 'method="POST",route="/api/v2/organizations",status="201"';
    const rpc = 'service="policyhub.adminorgs.v1.Organizations",method="CreateOrganization",code="OK"';
    const delta = (name: string, labels: string) =>
      (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    expect(delta('policyhub_http_request_duration_seconds_count', created)).toBe(1);
    expect(delta('policyhub_rpc_duration_seconds_count', rpc)).toBe(1);
  });

  it('show the outbox lag of every service, measured in the background by its relay', async () => {
    const schemas = Object.values(t.system.services).map((s) => s.db.schema);
    expect(schemas.length).toBeGreaterThan(0);
    const measured = (text: string, schema: string) =>
      sample(text, 'policyhub_outbox_pending_events', `service="${schema}"`) !== undefined &&
      sample(text, 'policyhub_outbox_oldest_pending_seconds', `service="${schema}"`) !== undefined;
    await waitFor(async () => {
      const text = await scrape();
      return schemas.every((schema) => measured(text, schema));
    });
  });
});
