import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningSystem, startSystem } from '@policyhub/embedded';
import { createTestDatabase, type TestDatabase } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from './support/api.js';
import { createUser, type TestUser } from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * Credentials that die when removed: a rotated SITE_ADMIN_TOKEN, and API
 * tokens listed, shown and revoked over HTTP with upstream's user token shapes. A revoked token is
 * refused at once on the gateway that revoked it and, with a shared Redis principal cache, on
 * every other gateway.
 */

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) console.warn('REDIS_URL is not set: skipping the shared-cache revocation test (CI sets it)');

const account = (api: ApiClient) => api.get('/account/details');

async function newToken(user: TestUser, description: string) {
  const res = await user.api.post(`/users/${user.id}/authentication-tokens`, {
    data: { type: 'authentication-tokens', attributes: { description } },
  });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.data.id as string, token: res.body.data.attributes.token as string };
}

describe('rotating SITE_ADMIN_TOKEN', () => {
  let db: TestDatabase;
  let dataDir: string;
  let system: RunningSystem | undefined;

  beforeAll(async () => {
    db = await createTestDatabase('ph_rotate');
    dataDir = mkdtempSync(join(tmpdir(), 'policyhub-rotate-'));
  });
  afterAll(async () => {
    await system?.close();
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = (siteAdminToken: string) =>
    startSystem({
      port: 0,
      validateResponses: true,
      dataDir,
      databaseUrl: db.url,
      siteAdminToken,
      logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
    });

  it('revokes the old token when the system restarts with a new one on the same database', async () => {
    const [oldToken, newToken] = ['first-site-admin-token-0123456789', 'second-site-admin-token-0123456789'];
    system = await start(oldToken);
    const before = new ApiClient(system.baseUrl, oldToken);
    const admin = await account(before);
    expect(admin.status, admin.text).toBe(200);
    expect(admin.body.data.attributes.username).toBe('admin');
    // A token the admin creates through the API is the admin's own, not the bootstrap token.
    const own = await before.post(`/users/${admin.body.data.id}/authentication-tokens`, {
      data: { type: 'authentication-tokens', attributes: { description: 'automation' } },
    });
    expect(own.status, own.text).toBe(201);
    await system.close();
    system = undefined;

    system = await start(newToken);
    const client = (token: string) => new ApiClient(system!.baseUrl, token);
    expect((await account(client(oldToken))).status).toBe(401);
    const rotated = await account(client(newToken));
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.data).toMatchObject({
      id: admin.body.data.id,
      attributes: { 'is-site-admin': true },
    });
    expect((await account(client(own.body.data.attributes.token))).status).toBe(200);

    const listed = await client(newToken).get(`/users/${admin.body.data.id}/authentication-tokens`);
    expect(listed.status, listed.text).toBe(200);
    expect(
      listed.body.data.map((t: { attributes: { description: string } }) => t.attributes.description).sort(),
    ).toEqual(['automation', 'bootstrap site-admin token']);
  });
});

describe('token management', () => {
  let t: TestSystem;
  let user: TestUser;
  let other: TestUser;

  beforeAll(async () => {
    t = await startTestSystem();
    [user, other] = await Promise.all([createUser(t, 'tok'), createUser(t, 'tok-other')]);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('lists a user’s tokens in upstream’s shape, paginated, without any secret', async () => {
    const ci = await newToken(user, 'ci');
    const res = await user.api.get(`/users/${user.id}/authentication-tokens`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toHaveLength(2);
    for (const item of res.body.data) {
      expect(item).toMatchObject({
        type: 'authentication-tokens',
        attributes: { token: null, 'expired-at': null, 'created-at': expect.any(String) },
        relationships: { 'created-by': { data: { id: user.id, type: 'users' } } },
        links: { self: `/api/v2/authentication-tokens/${item.id}` },
      });
      expect(Object.keys(item.attributes).sort()).toEqual([
        'created-at',
        'description',
        'expired-at',
        'last-used-at',
        'token',
      ]);
    }
    const byId = new Map(res.body.data.map((i: { id: string }) => [i.id, i]));
    const ciItem = byId.get(ci.id) as { attributes: Record<string, unknown> };
    expect(ciItem.attributes).toMatchObject({ description: 'ci', 'last-used-at': null });
    // The token the user called with has been used, and says when (to the minute).
    const [callerItem] = res.body.data.filter((i: { id: string }) => i.id !== ci.id);
    const lastUsed = Date.parse(callerItem.attributes['last-used-at']);
    expect(lastUsed).toBeGreaterThanOrEqual(Date.parse(callerItem.attributes['created-at']));
    expect(lastUsed).toBeLessThanOrEqual(Date.now());
    for (const secret of [user.token, ci.token]) expect(res.text).not.toContain(secret);
    expect(res.body.meta.pagination).toMatchObject({ 'total-count': 2, 'current-page': 1 });

    const page = await user.api.get(
      `/users/${user.id}/authentication-tokens?page%5Bsize%5D=1&page%5Bnumber%5D=2`,
    );
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.meta.pagination).toMatchObject({
      'total-count': 2,
      'total-pages': 2,
      'current-page': 2,
    });

    const shown = await user.api.get(`/authentication-tokens/${ci.id}`);
    expect(shown.status, shown.text).toBe(200);
    expect(shown.body.data).toMatchObject({ id: ci.id, attributes: { description: 'ci', token: null } });
    expect(shown.text).not.toContain(ci.token);

    // Once used, the new token's last use shows.
    expect((await account(t.client(ci.token))).status).toBe(200);
    const used = await user.api.get(`/authentication-tokens/${ci.id}`);
    expect(used.body.data.attributes['last-used-at']).toEqual(expect.any(String));
  });

  it('hides a user’s tokens from everyone but the user and site admins (404, like missing)', async () => {
    const victim = await newToken(user, 'victim');
    const denied = [
      await other.api.get(`/users/${user.id}/authentication-tokens`),
      await other.api.get(`/authentication-tokens/${victim.id}`),
      await other.api.delete(`/authentication-tokens/${victim.id}`),
      await user.api.get('/authentication-tokens/at-doesnotexist'),
      await user.api.get('/users/user-doesnotexist/authentication-tokens'),
      await t.admin.get('/users/user-doesnotexist/authentication-tokens'),
    ];
    for (const res of denied) {
      expect(res.status, res.text).toBe(404);
      expect(res.body).toEqual({ errors: [{ status: '404', code: 'NOT_FOUND', title: 'not found' }] });
    }
    expect((await account(t.client(victim.token))).status).toBe(200);
    expect((await t.admin.get(`/users/${user.id}/authentication-tokens`)).status).toBe(200);
    expect((await t.admin.get(`/authentication-tokens/${victim.id}`)).status).toBe(200);
  });

  it('revokes a token at once on this gateway, whether the user or a site admin deletes it', async () => {
    for (const [who, api] of [
      ['the user', () => user.api],
      ['a site admin', () => t.admin],
    ] as const) {
      const revoked = await newToken(user, `revoked by ${who}`);
      // Cached: the gateway has just authenticated it.
      expect((await account(t.client(revoked.token))).status).toBe(200);
      const del = await api().delete(`/authentication-tokens/${revoked.id}`);
      expect(del.status, `${who}: ${del.text}`).toBe(204);
      expect(del.text).toBe('');
      const after = await account(t.client(revoked.token));
      expect(after.status, who).toBe(401);
      expect(after.body).toEqual({
        errors: [{ status: '401', code: 'UNAUTHORIZED', title: 'unauthorized' }],
      });
      expect((await user.api.get(`/authentication-tokens/${revoked.id}`)).status).toBe(404);
      expect((await api().delete(`/authentication-tokens/${revoked.id}`)).status).toBe(404);
    }
    // The user's other tokens keep working.
    expect((await account(user.api)).status).toBe(200);
  });

  it('lets a user revoke the very token it calls with', async () => {
    const self = await newToken(user, 'self');
    const client = t.client(self.token);
    expect((await client.delete(`/authentication-tokens/${self.id}`)).status).toBe(204);
    expect((await account(client)).status).toBe(401);
  });

  it('takes an expiry (`expired-at`) at creation and shows it on the token', async () => {
    const at = new Date(Date.now() + 86_400_000);
    // Upstream's clients send a zone offset; the token shows the same instant in UTC.
    const offset = `${at.toISOString().slice(0, 19)}+00:00`;
    const res = await user.api.post(`/users/${user.id}/authentication-tokens`, {
      data: {
        type: 'authentication-tokens',
        attributes: { description: 'ci-expiring', 'expired-at': offset },
      },
    });
    expect(res.status, res.text).toBe(201);
    const expiredAt = `${at.toISOString().slice(0, 19)}.000Z`;
    expect(res.body.data.attributes['expired-at']).toBe(expiredAt);
    const shown = await user.api.get(`/authentication-tokens/${res.body.data.id}`);
    expect(shown.body.data.attributes['expired-at']).toBe(expiredAt);
    expect(shown.body.data.attributes.token).toBeNull();
    expect((await account(t.client(res.body.data.attributes.token))).status).toBe(200);
  });

  it('refuses a token once its expiry has passed, even one the gateway has just cached', async () => {
    const expiredAt = new Date(Date.now() + 3_000).toISOString();
    const res = await user.api.post(`/users/${user.id}/authentication-tokens`, {
      data: { type: 'authentication-tokens', attributes: { 'expired-at': expiredAt } },
    });
    expect(res.status, res.text).toBe(201);
    const client = t.client(res.body.data.attributes.token);
    // Authenticated (and cached for up to 5 s) while it is valid.
    expect((await account(client)).status).toBe(200);
    await waitUntil(Date.parse(expiredAt) + 50);
    const after = await account(client);
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ errors: [{ status: '401', code: 'UNAUTHORIZED', title: 'unauthorized' }] });
    // Still listed, with its expiry; it can be deleted like any other.
    const shown = await user.api.get(`/authentication-tokens/${res.body.data.id}`);
    expect(shown.body.data.attributes['expired-at']).toBe(expiredAt);
    expect((await user.api.delete(`/authentication-tokens/${res.body.data.id}`)).status).toBe(204);
  });

  it('refuses an expiry that is not a future time with a zone (422), creating nothing', async () => {
    const before = (await user.api.get(`/users/${user.id}/authentication-tokens`)).body.meta.pagination[
      'total-count'
    ];
    for (const value of ['2001-01-01T00:00:00Z', 'tomorrow', '2030-01-01T00:00:00', 42, true]) {
      const res = await user.api.post(`/users/${user.id}/authentication-tokens`, {
        data: { type: 'authentication-tokens', attributes: { 'expired-at': value } },
      });
      expect(res.status, `${value}: ${res.text}`).toBe(422);
      expect(res.body.errors[0].source).toEqual({ pointer: '/data/attributes/expired-at' });
    }
    const after = (await user.api.get(`/users/${user.id}/authentication-tokens`)).body.meta.pagination[
      'total-count'
    ];
    expect(after).toBe(before);
  });
});

/** Resolves once the wall clock has passed `epochMs`. */
const waitUntil = (epochMs: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, epochMs - Date.now())));

describe.skipIf(!REDIS_URL)('revocation with a shared Redis principal cache', () => {
  let db: TestDatabase;
  const dataDirs: string[] = [];
  const systems: RunningSystem[] = [];
  const siteAdminToken = 'shared-cache-site-admin-token-0123456789';

  beforeAll(async () => {
    db = await createTestDatabase('ph_revoke');
    // Two gateways (two whole systems) on one database and one Redis, as two replicas would be.
    for (let i = 0; i < 2; i++) {
      const dataDir = mkdtempSync(join(tmpdir(), 'policyhub-revoke-'));
      dataDirs.push(dataDir);
      systems.push(
        await startSystem({
          port: 0,
          validateResponses: true,
          dataDir,
          databaseUrl: db.url,
          redisUrl: REDIS_URL,
          siteAdminToken,
          logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
        }),
      );
    }
  });
  afterAll(async () => {
    for (const s of systems.reverse()) await s.close();
    await db?.drop();
    for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
  });

  it('refuses a token revoked through one gateway on the other at once', async () => {
    const [first, second] = systems.map((s) => ({
      admin: new ApiClient(s.baseUrl, siteAdminToken),
      client: (token: string) => new ApiClient(s.baseUrl, token),
    }));
    const user = await createUser({ admin: first!.admin, client: first!.client }, 'redis');
    const extra = await newToken(user, 'replicated');
    // Both gateways have authenticated it (the principal is in the shared cache).
    expect((await account(first!.client(extra.token))).status).toBe(200);
    expect((await account(second!.client(extra.token))).status).toBe(200);

    expect((await user.api.delete(`/authentication-tokens/${extra.id}`)).status).toBe(204);
    expect((await account(second!.client(extra.token))).status).toBe(401);
    expect((await account(first!.client(extra.token))).status).toBe(401);
    expect((await account(second!.client(user.token))).status).toBe(200);
  });
});
