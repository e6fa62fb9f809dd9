import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policyArchive, putArchive, tarGzOf } from './support/archives.js';
import { ENDPOINTS, concretePath, uploadToken } from './support/route-catalog.js';
import { DatabaseProbe } from './support/security-db.js';
import { closeInternalApi } from './support/security-fixtures.js';
import { isErrorDocument, rawRequest } from './support/security-http.js';
import { type SecurityTestSystem, startSecurityTestSystem } from './support/security-system.js';
import { SecurityWorld } from './support/security-world.js';

/**
 * Upload capability URLs (ADR 0003): unguessable (≥ 128 random bits), valid one hour after the
 * version's created-at, usable once; no token ever reaches a log line; every route has a body
 * size limit.
 */

const UPLOAD_MAX_BYTES = 256 * 1024;
const MiB = 1024 * 1024;

let t: SecurityTestSystem;
let world: SecurityWorld;
let probe: DatabaseProbe;
/** Every secret this file's requests carried; none may appear in a log line. */
const secrets = new Set<string>();

beforeAll(async () => {
  t = await startSecurityTestSystem({
    captureLogs: true,
    env: { UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES) },
  });
  world = await SecurityWorld.create(t);
  probe = DatabaseProbe.of(t);
  secrets.add(t.system.siteAdminToken);
  for (const user of [world.orgA.owner, world.orgB.owner]) secrets.add(user.token);
});
afterAll(async () => {
  if (t) closeInternalApi(t);
  await t?.stop();
});

const api = () => world.orgA.owner.api;
const fixtures = () => world.orgA.fixtures;

/** A pending version; its upload token joins the secrets. */
async function pendingVersion() {
  const version = await fixtures().freshVersion();
  secrets.add(uploadToken(version.upload));
  secrets.add(version.upload);
  return version;
}

const storedObjectsOf = async (versionId: string) =>
  (
    await t.system.services.storage!.db.query<{ sha256: string }>(
      'SELECT sha256 FROM objects WHERE key LIKE $1',
      [`%/${versionId}.tar.gz`],
    )
  ).rows;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('upload URLs are unguessable', () => {
  it('carry at least 128 random bits, in a token unrelated to any id and different every time', async () => {
    const versions = await Promise.all(Array.from({ length: 12 }, () => pendingVersion()));
    const tokens = versions.map((v) => uploadToken(v.upload));
    for (const [i, v] of versions.entries()) {
      // Every read mints a fresh URL of the same upload (ADR 0059): another token, same shape.
      const shown = await api().get(`/policy-set-versions/${v.id}`);
      const reread = shown.body.data.attributes.upload as string;
      secrets.add(reread);
      secrets.add(uploadToken(reread));
      expect(reread).not.toBe(v.upload);
      tokens.push(uploadToken(reread));
      expect(new URL(v.upload).pathname).toBe(`/api/v2/uploads/${tokens[i]}`);
    }
    for (const token of tokens) {
      // base64url: 6 bits per character.
      expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(token.length * 6).toBeGreaterThanOrEqual(128);
      for (const v of versions) for (const id of [v.id, v.setId]) expect(token).not.toContain(id);
      expect(token).not.toContain(world.orgA.name);
    }
    expect(new Set(tokens).size).toBe(tokens.length);
    // No fixed or sequential part (a counter, a timestamp): every position varies across tokens,
    // and no two tokens share a prefix.
    const width = Math.min(...tokens.map((tk) => tk.length));
    for (let position = 0; position < width; position++) {
      expect(new Set(tokens.map((tk) => tk[position])).size, `position ${position}`).toBeGreaterThan(1);
    }
    expect(new Set(tokens.map((tk) => tk.slice(0, 6))).size).toBe(tokens.length);
  });

  it('are capabilities for one upload only: not API tokens, and API tokens are not upload URLs', async () => {
    const v = await pendingVersion();
    const token = uploadToken(v.upload);
    expect((await t.client(token).get('/organizations')).status).toBe(401);
    expect((await t.client(token).get(`/policy-set-versions/${v.id}`)).status).toBe(401);
    const withApiToken = await putArchive(
      `${t.system.baseUrl}/api/v2/uploads/${world.orgA.owner.token}`,
      await policyArchive(),
    );
    expect(withApiToken.status).toBe(404);
    // Reading the URL neither works nor spends it (no such route: 401 without a token, as for any
    // unknown path).
    const read = await rawRequest(t.system.baseUrl, { method: 'GET', path: new URL(v.upload).pathname });
    expect([401, 404]).toContain(read.status);
    expect((await putArchive(v.upload, await policyArchive())).status).toBe(200);
  });

  it('no table holds an upload URL, its token or a hash of it, and none holds an API token', async () => {
    const v = await pendingVersion();
    const reread = (await api().get(`/policy-set-versions/${v.id}`)).body.data.attributes.upload as string;
    secrets.add(reread);
    secrets.add(uploadToken(reread));
    const ws = await api().post(`/organizations/${world.orgA.name}/workspaces`, {
      data: { type: 'workspaces', attributes: { name: `capability-${randomBytes(4).toString('hex')}` } },
    });
    expect(ws.status, ws.text).toBe(201);
    const cv = await api().post(`/workspaces/${ws.body.data.id}/configuration-versions`, {
      data: { type: 'configuration-versions', attributes: {} },
    });
    expect(cv.status, cv.text).toBe(201);
    const cvUrl = cv.body.data.attributes['upload-url'] as string;
    secrets.add(cvUrl);
    secrets.add(uploadToken(cvUrl));
    for (const url of [v.upload, reread, cvUrl]) {
      const token = uploadToken(url);
      // Every text column of every row of every service's tables (policy_sets, runs, storage…).
      expect(await probe.tablesContaining(token)).toEqual([]);
      expect(await probe.tablesContaining(sha256(Buffer.from(token)))).toEqual([]);
    }
    // The owners keep storage's session id (no capability without the service keys); storage
    // keeps no hash for a session opened this way.
    const { rows: sessions } = await t.system.services.storage!.db.query<{
      id: string;
      token_sha256: string | null;
    }>('SELECT id, token_sha256 FROM upload_sessions WHERE owner_id = ANY($1) ORDER BY owner_kind', [
      [v.id, cv.body.data.id],
    ]);
    expect(sessions.map((r) => r.token_sha256)).toEqual([null, null]);
    for (const session of sessions) {
      expect(await probe.tablesContaining(session.id)).toEqual(
        expect.arrayContaining(['storage.upload_sessions']),
      );
    }
    for (const apiToken of [t.system.siteAdminToken, world.orgA.owner.token]) {
      expect(await probe.tablesContaining(apiToken)).toEqual([]);
    }
  });

  it('refuses altered URLs and URLs spliced from two versions with 404, as unknown ones', async () => {
    const [a, b] = [await pendingVersion(), await pendingVersion()];
    const rawA = Buffer.from(uploadToken(a.upload), 'base64url');
    const rawB = Buffer.from(uploadToken(b.upload), 'base64url');
    const base = `${t.system.baseUrl}/api/v2/uploads/`;
    const flip = (i: number) => {
      const altered = Buffer.from(rawA);
      altered[i] = altered[i]! ^ 0x01;
      return altered.toString('base64url');
    };
    const forged = [
      flip(0),
      flip(Math.floor(rawA.length / 2)),
      flip(rawA.length - 1),
      // A's nonce and tag around B's sealed session: names no session.
      Buffer.concat([
        rawA.subarray(0, 12),
        rawB.subarray(12, rawB.length - 16),
        rawA.subarray(rawA.length - 16),
      ]).toString('base64url'),
      rawA.subarray(0, rawA.length - 1).toString('base64url'),
      `${uploadToken(a.upload)}A`,
    ];
    for (const token of forged) {
      const put = await putArchive(`${base}${token}`, await policyArchive());
      expect(put.status, token).toBe(404);
      expect(put.body).toEqual({ errors: [{ status: '404', code: 'NOT_FOUND', title: 'not found' }] });
    }
    // Nothing was spent: both genuine URLs still work, once each.
    expect((await putArchive(a.upload, await policyArchive())).status).toBe(200);
    expect((await putArchive(b.upload, await policyArchive())).status).toBe(200);
  });
});

describe('upload URLs expire one hour after the version was created', () => {
  /** Moves the version (and its upload session) `minutes` into the past. */
  async function age(versionId: string, minutes: number) {
    const shift = `interval '${minutes} minutes'`;
    await t.system.services.storage!.db.query(
      `UPDATE upload_sessions SET created_at = created_at - ${shift}, expires_at = expires_at - ${shift} WHERE owner_id = $1`,
      [versionId],
    );
    await t.system.services['policy-sets']!.db.query(
      `UPDATE policy_set_versions SET created_at = created_at - ${shift}, pending_at = pending_at - ${shift},
              upload_expires_at = upload_expires_at - ${shift} WHERE id = $1`,
      [versionId],
    );
  }

  it("the URL's validity ends exactly one hour after the version's created-at", async () => {
    const v = await pendingVersion();
    const createdAt = Date.parse(
      (await api().get(`/policy-set-versions/${v.id}`)).body.data.attributes['created-at'],
    );
    const { rows } = await t.system.services.storage!.db.query<{ expires_at: string }>(
      'SELECT expires_at FROM upload_sessions WHERE owner_id = $1',
      [v.id],
    );
    expect(Date.parse(rows[0]!.expires_at) - createdAt).toBe(60 * 60 * 1000);
  });

  it('an hour-old URL is refused with a 4xx and nothing is stored', async () => {
    const v = await pendingVersion();
    await age(v.id, 60);
    await probe.settle();
    const before = await probe.snapshot();
    const put = await putArchive(v.upload, await policyArchive());
    expect(put.status).toBe(409);
    expect(isErrorDocument(put.body, 409)).toBe(true);
    expect(put.body!.errors[0]!.detail).toMatch(/expired/);
    await probe.settle();
    expect(DatabaseProbe.changedTables(before, await probe.snapshot())).toEqual([]);
    expect(await storedObjectsOf(v.id)).toEqual([]);
    expect((await api().get(`/policy-set-versions/${v.id}`)).body.data.attributes.status).toBe('pending');
  });

  it('a 59-minute-old URL still works', async () => {
    const v = await pendingVersion();
    await age(v.id, 59);
    expect((await putArchive(v.upload, await policyArchive())).status).toBe(200);
    expect((await api().get(`/policy-set-versions/${v.id}`)).body.data.attributes.status).toBe('ready');
  });
});

describe('upload URLs are single use', () => {
  it('a second PUT is refused and the first archive stays', async () => {
    const v = await pendingVersion();
    const first = await policyArchive();
    expect((await putArchive(v.upload, first)).status).toBe(200);
    const version = (await api().get(`/policy-set-versions/${v.id}`)).body.data;
    expect(await storedObjectsOf(v.id)).toEqual([{ sha256: sha256(first) }]);

    await probe.settle();
    const before = await probe.snapshot();
    const again = await putArchive(v.upload, await policyArchive('main = rule { false }\n'));
    expect(again.status).toBe(409);
    expect(isErrorDocument(again.body, 409)).toBe(true);
    await probe.settle();
    expect(DatabaseProbe.changedTables(before, await probe.snapshot())).toEqual([]);
    expect(await storedObjectsOf(v.id)).toEqual([{ sha256: sha256(first) }]);
    expect((await api().get(`/policy-set-versions/${v.id}`)).body.data).toEqual(version);
  });

  it('of two simultaneous PUTs exactly one is stored', async () => {
    const v = await pendingVersion();
    const archives = [
      await policyArchive('main = rule { true }\n'),
      await policyArchive('main = rule { 1 == 1 }\n'),
    ];
    const results = await Promise.all(archives.map((a) => putArchive(v.upload, a)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = archives[results.findIndex((r) => r.status === 200)]!;
    expect(await storedObjectsOf(v.id)).toEqual([{ sha256: sha256(winner) }]);
  });
});

describe('request body limits', () => {
  const jsonWrites = ENDPOINTS.filter((e) => e.method !== 'GET' && e.body.shape !== 'raw');
  const twoMiBDocument = JSON.stringify({
    data: { type: 'x', attributes: { description: 'x'.repeat(2 * MiB) } },
  });

  it.each(jsonWrites.map((e) => [`${e.method} ${e.path}`, e] as const))(
    '%s refuses a 2 MiB JSON body with 413, sized or chunked, and changes nothing',
    async (_label, endpoint) => {
      const call = await endpoint.prepare(world, world.orgA);
      const token =
        endpoint.access.kind === 'site-admin'
          ? t.system.siteAdminToken
          : endpoint.access.kind === 'self'
            ? call.self!.token
            : (call.org ?? world.orgA).owner.token;
      await probe.settle();
      const before = await probe.snapshot();
      for (const chunked of [false, true]) {
        const res = await rawRequest(t.system.baseUrl, {
          method: endpoint.method,
          path: concretePath(endpoint, call.params),
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json' },
          body: twoMiBDocument,
          chunked,
        });
        expect(res.status, `${chunked ? 'chunked' : 'sized'}: ${res.text.slice(0, 200)}`).toBe(413);
        expect(isErrorDocument(res.body, 413)).toBe(true);
      }
      expect(DatabaseProbe.changedTables(before, await probe.snapshot())).toEqual([]);
    },
  );

  it('GET routes ignore or refuse a 2 MiB body, never failing', async () => {
    for (const endpoint of ENDPOINTS.filter((e) => e.method === 'GET')) {
      const call = await endpoint.prepare(world, world.orgA);
      const res = await rawRequest(t.system.baseUrl, {
        method: 'GET',
        path: concretePath(endpoint, call.params),
        headers: {
          authorization: `Bearer ${world.orgA.owner.token}`,
          'content-type': 'application/vnd.api+json',
        },
        body: twoMiBDocument,
      });
      expect(res.status, `${endpoint.path}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
    }
  });

  it('PUT /policies/:id/upload refuses more than 10 MiB of policy code with 413', async () => {
    const policy = await fixtures().freshPolicy();
    const res = await api().put(`/policies/${policy.id}/upload`, randomBytes(10 * MiB + 1), {
      'content-type': 'application/octet-stream',
    });
    expect(res.status).toBe(413);
    expect(isErrorDocument(res.body, 413)).toBe(true);
    // Nothing was stored: the policy still has no code to download.
    expect((await api().get(`/policies/${policy.id}/download`)).status).toBe(404);
  });

  it('the upload URL refuses an archive over the storage limit with 413 and stores nothing', async () => {
    const v = await pendingVersion();
    const put = await putArchive(
      v.upload,
      await tarGzOf([{ name: 'noise', content: randomBytes(2 * UPLOAD_MAX_BYTES) }]),
    );
    expect(put.status).toBe(413);
    expect(isErrorDocument(put.body, 413)).toBe(true);
    expect(await storedObjectsOf(v.id)).toEqual([]);
  });
});

describe('tokens never appear in logs', () => {
  it('no log line of any service holds an API token, an upload token or an upload URL', async () => {
    // A session touching every token path: token creation (the token is in the response body),
    // authenticated calls, unknown and malformed tokens, uploads that succeed, fail, repeat,
    // expire, and requests to unknown routes under the upload path.
    const user = await world.freshUser();
    const created = await user.api.post(`/users/${user.id}/authentication-tokens`, {
      data: { type: 'authentication-tokens', attributes: { description: 'ci' } },
    });
    expect(created.status).toBe(201);
    const newToken = created.body.data.attributes.token as string;
    for (const secret of [user.token, newToken]) secrets.add(secret);
    expect((await t.client(newToken).get('/account/details')).status).toBe(200);

    const forged = `ph.${randomBytes(32).toString('base64url')}`;
    secrets.add(forged);
    expect((await t.client(forged).get('/organizations')).status).toBe(401);
    expect((await t.client(forged).post('/organizations', { data: {} })).status).toBe(401);
    expect(
      (await world.orgB.owner.api.get(`/policy-sets/${(await fixtures().sharedPolicySet()).id}`)).status,
    ).toBe(404);

    const ok = await pendingVersion();
    expect((await putArchive(ok.upload, await policyArchive())).status).toBe(200);
    expect((await putArchive(ok.upload, await policyArchive())).status).toBe(409);
    const broken = await pendingVersion();
    expect((await putArchive(broken.upload, Buffer.from('not an archive'))).status).toBe(422);
    const tooBig = await pendingVersion();
    expect(
      (await putArchive(tooBig.upload, randomBytes(2 * UPLOAD_MAX_BYTES))).status,
    ).toBeGreaterThanOrEqual(400);
    const unknown = randomBytes(32).toString('base64url');
    secrets.add(unknown);
    expect(
      (await putArchive(`${t.system.baseUrl}/api/v2/uploads/${unknown}`, await policyArchive())).status,
    ).toBe(404);
    expect([401, 404]).toContain((await putArchive(`${ok.upload}/extra`, await policyArchive())).status);

    await probe.settle();
    const lines = t.logLines();
    // The capture works: request lines from the gateway and lines from the services are there.
    expect(lines.some((l) => l.includes('"service":"gateway"') && l.includes('/uploads/:token'))).toBe(true);
    expect(lines.some((l) => l.includes('"service":"storage"'))).toBe(true);
    const leaks = lines.flatMap((line) =>
      [...secrets].filter((s) => line.includes(s)).map((s) => `${s.slice(0, 8)}…: ${line.slice(0, 300)}`),
    );
    expect(leaks).toEqual([]);

    const metrics = await (await fetch(`${t.system.opsUrl}/metrics`)).text();
    expect(metrics).toContain('policyhub_http_request_duration_seconds');
    expect([...secrets].filter((s) => metrics.includes(s))).toEqual([]);
  });
});
