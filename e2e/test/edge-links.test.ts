import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createPolicySet, createWorkspace } from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * What the gateway writes into links of its own (docs/security.md, "The edge";
 * docs/adr/0041-absolute-urls-and-body-time-limits.md): absolute URLs never come from a Host header
 * nobody configured, and pagination links carry only the parameters the route understands.
 */
let t: TestSystem;
beforeAll(async () => {
  t = await startTestSystem();
});
afterAll(async () => {
  await t?.stop();
});

describe('pagination links', () => {
  // An undeclared filter[…], search[…] or sort is refused with 400 (docs/errors.md); any other
  // unknown parameter is ignored, and never copied into the links.
  it('carry the parameters the route understands and none that it does not', async () => {
    const { name: org, owner } = await createOrganization(t, 'links');
    for (const name of ['web-a', 'web-b', 'web-c']) await createWorkspace(owner.api, org, { name });
    const pasted = 'x'.repeat(2000);
    const res = await owner.api.get(
      `/organizations/${org}/workspaces?search%5Bname%5D=web&page%5Bsize%5D=1&utm_source=${pasted}&nope=1`,
    );
    expect(res.status, res.text).toBe(200);
    const links = res.body.links as Record<string, string | null>;
    for (const link of Object.values(links)) {
      if (link === null) continue;
      expect(link).not.toContain('utm_source');
      expect(link).not.toContain('nope');
      expect(link).toContain('search%5Bname%5D=web');
      expect(link).toContain('page%5Bsize%5D=1');
    }
    // The links still lead somewhere useful.
    const next = await owner.api.get(links.next!);
    expect(next.status, next.text).toBe(200);
    expect(next.body.meta.pagination['current-page']).toBe(2);
  });
});

/** A request to `system` carrying the given Host header (fetch cannot set one). */
function withHost(
  system: TestSystem['system'],
  host: string,
  method: string,
  path: string,
  token: string,
  // biome-ignore lint/suspicious/noExplicitAny: JSON:API documents of several shapes, read as in api.ts
): Promise<{ status: number; body: any }> {
  const url = new URL(`${system.baseUrl}/api/v2${path}`);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path: `${url.pathname}${url.search}`,
        headers: { host, authorization: `Bearer ${token}`, accept: 'application/vnd.api+json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('absolute URLs without PUBLIC_URL or ALLOWED_HOSTS', () => {
  it('come from the address the request arrived on, whatever Host it names', async () => {
    const { name: org, owner } = await createOrganization(t, 'hosts');
    const set = await createPolicySet(owner.api, org);
    const version = await withHost(
      t.system,
      'evil.example',
      'POST',
      `/policy-sets/${set.id}/versions`,
      owner.token,
    );
    expect(version.status).toBe(201);
    expect(version.body.data.links.upload).toMatch(new RegExp(`^${t.system.baseUrl}/api/v2/uploads/`));
    const list = await withHost(
      t.system,
      'evil.example:666',
      'GET',
      `/policy-sets/${set.id}/versions`,
      owner.token,
    );
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).not.toContain('evil.example');
    expect(list.body.links.self).toMatch(new RegExp(`^${t.system.baseUrl}/api/v2/policy-sets/`));
  });
});

describe('with ALLOWED_HOSTS', () => {
  let allowed: TestSystem;
  beforeAll(async () => {
    allowed = await startTestSystem({ allowedHosts: ['policyhub.example', '127.0.0.1'] });
  });
  afterAll(async () => {
    await allowed?.stop();
  });

  it('absolute URLs name the allowed Host the request was sent to; any other Host is refused, changing nothing', async () => {
    const { name: org, owner } = await createOrganization(allowed, 'allowed');
    const set = await createPolicySet(owner.api, org);
    const port = new URL(allowed.system.baseUrl).port;
    const version = await withHost(
      allowed.system,
      `PolicyHub.example:${port}`,
      'POST',
      `/policy-sets/${set.id}/versions`,
      owner.token,
    );
    expect(version.status).toBe(201);
    expect(version.body.data.links.upload).toMatch(
      new RegExp(`^http://policyhub\\.example:${port}/api/v2/uploads/`, 'i'),
    );

    const refused = await withHost(
      allowed.system,
      'evil.example',
      'POST',
      `/policy-sets/${set.id}/versions`,
      owner.token,
    );
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].code).toBe('GATEWAY_HOST_NOT_ALLOWED');
    const versions = await owner.api.get(`/policy-sets/${set.id}/versions`);
    expect(versions.body.data).toHaveLength(1);
  });
});
