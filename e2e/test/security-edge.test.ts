import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningSystem, startSystem } from '@policyhub/embedded';
import { createTestDatabase, type TestDatabase } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type ApiResponse } from './support/api.js';
import { createOrganization, createPolicySet, createUser } from './support/fixtures.js';
import { metricValue } from './support/multi-process.js';

/**
 * The HTTP edge of a whole running system: failed authentications
 * limited per client address, the API security headers, no caching of anything that carries a
 * secret. Requests come over loopback from two addresses: 127.0.0.1 and 127.0.0.2.
 */
const FAILURES = 5;
const FLOODER = '127.0.0.2';
let system: RunningSystem;
let db: TestDatabase;
let dataDir: string;
let admin: ApiClient;

beforeAll(async () => {
  db = await createTestDatabase('ph_e2e_edge');
  dataDir = mkdtempSync(join(tmpdir(), 'policyhub-e2e-edge-'));
  system = await startSystem({
    port: 0,
    validateResponses: true,
    dataDir,
    databaseUrl: db.url,
    logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
    authFailureLimit: FAILURES,
  });
  admin = new ApiClient(system.baseUrl, system.siteAdminToken);
});
afterAll(async () => {
  await system?.close();
  await db?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** GET with a bearer token from a chosen loopback source address. */
function getFrom(
  localAddress: string,
  path: string,
  token: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${system.baseUrl}/api/v2${path}`);
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        localAddress,
        headers: { authorization: `Bearer ${token}` },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Authenticate calls admin-orgs refused, read from the ops listener. */
const refusedAuthentications = async () =>
  metricValue(
    await (await fetch(`${system.opsUrl}/metrics`)).text(),
    'policyhub_rpc_duration_seconds_count',
    {
      service: 'policyhub.adminorgs.v1.Identity',
      method: 'Authenticate',
      code: 'UNAUTHENTICATED',
    },
  );

describe('a flood of random tokens', () => {
  it('is answered 429 after a bounded number of lookups, while other addresses keep working', async () => {
    const CONCURRENCY = 10;
    const before = await refusedAuthentications();
    const statuses: number[] = [];
    for (let sent = 0; sent < 300; sent += CONCURRENCY) {
      const batch = await Promise.all(
        Array.from({ length: CONCURRENCY }, (_, i) =>
          getFrom(
            FLOODER,
            '/account/details',
            `ph.random-${sent + i}-${Math.random().toString(36).slice(2)}`,
          ),
        ),
      );
      statuses.push(...batch.map((r) => r.status));
    }
    const lookups = (await refusedAuthentications()) - before;
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    expect(lookups).toBe(statuses.filter((s) => s === 401).length);
    expect(lookups).toBeGreaterThanOrEqual(FAILURES);
    expect(lookups).toBeLessThanOrEqual(FAILURES + CONCURRENCY);
    const last = await getFrom(FLOODER, '/account/details', 'ph.one-more-random-token');
    expect([last.status, JSON.parse(last.body)]).toEqual([
      429,
      {
        errors: [
          {
            detail: "You have exceeded the API's rate limit.",
            status: '429',
            code: 'GATEWAY_RATE_LIMITED',
            title: 'Too many requests',
          },
        ],
      },
    ]);

    // Another address: known tokens work, an old and a brand-new one alike, and a typo is a 401.
    expect((await admin.get('/account/details')).status).toBe(200);
    const fresh = await createUser({ admin, client: (token) => new ApiClient(system.baseUrl, token) });
    expect((await getFrom('127.0.0.1', '/account/details', fresh.token)).status).toBe(200);
    expect((await getFrom('127.0.0.1', '/account/details', 'ph.a-typo')).status).toBe(401);
  });
});

describe('response headers', () => {
  const expectApiHeaders = (res: ApiResponse, what: string) => {
    expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
    expect(res.headers.get('x-frame-options'), what).toBe('DENY');
    expect(res.headers.get('referrer-policy'), what).toBe('no-referrer');
    expect(res.headers.get('content-security-policy'), what).toContain("frame-ancestors 'none'");
    // Over plain http (no https PUBLIC_URL) there is no HSTS.
    expect(res.headers.get('strict-transport-security'), what).toBeNull();
  };

  it('never let a response that carries a token or an upload URL be stored', async () => {
    const t = { admin, client: (token: string) => new ApiClient(system.baseUrl, token) };
    const me = await admin.get('/account/details');
    const created = await admin.post(`/users/${me.body.data.id}/authentication-tokens`, {
      data: { type: 'authentication-tokens', attributes: { description: 'ci' } },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.attributes.token).toMatch(/^ph\./);

    const { name: org, owner } = await createOrganization(t, 'edge');
    const set = await createPolicySet(owner.api, org);
    const version = await owner.api.post(`/policy-sets/${set.id}/versions`);
    expect(version.status).toBe(201);
    const upload = version.body.data.links.upload as string;
    expect(upload).toContain('/api/v2/uploads/');
    const secretBearing: Array<[string, ApiResponse]> = [
      ['token create', created],
      ['version create', version],
      ['version show', await owner.api.get(`/policy-set-versions/${version.body.data.id}`)],
      ['version list', await owner.api.get(`/policy-sets/${set.id}/versions`)],
      [
        'policy set with its newest version',
        await owner.api.get(`/policy-sets/${set.id}?include=newest_version`),
      ],
    ];
    for (const [what, res] of secretBearing) {
      expect(res.status, what).toBeLessThan(300);
      // (Each read mints its own URL of the upload: the same path, another token.)
      if (what !== 'token create') expect(res.text, what).toMatch(/\/api\/v2\/uploads\/[A-Za-z0-9_-]{60,}/);
      expect(res.headers.get('cache-control'), what).toBe('no-store');
      expectApiHeaders(res, what);
    }
  });

  it('mark errors and public endpoints the same way', async () => {
    const anonymous = new ApiClient(system.baseUrl, undefined);
    const responses: Array<[string, ApiResponse]> = [
      ['ping', await anonymous.get('/ping')],
      ['401', await anonymous.get('/account/details')],
      ['404', await admin.get('/organizations/no-such-organization')],
      ['422', await admin.post('/organizations', { data: { type: 'organizations', attributes: {} } })],
      [
        'upload to an unknown URL',
        await anonymous.put('/uploads/not-a-capability', 'x', { 'content-type': 'application/octet-stream' }),
      ],
    ];
    for (const [what, res] of responses) {
      expectApiHeaders(res, what);
      expect(res.headers.get('cache-control'), what).toBe('no-store');
    }
  });
});
