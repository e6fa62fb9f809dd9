import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningSystem, startSystem } from '@policyhub/embedded';
import { type SigningKey, UploadTokens } from '@policyhub/grpc-runtime';
import { createTestDatabase } from '@policyhub/testing';
import { expect, it } from 'vitest';
import { ApiClient } from './support/api.js';
import { policyArchive, putArchive } from './support/archives.js';
import { createOrganization, createPolicySet, createWorkspace } from './support/fixtures.js';

/**
 * Upload URLs carry storage's session id sealed with a key derived from INTERNAL_SIGNING_KEYS
 * (ADR 0059). Rotation works as for every other use of those keys: the first key mints, every
 * listed key is accepted; a key taken off the list takes its URLs with it (re-reading the version
 * gives a fresh one). A genuine token past its own expiry, or naming no session, is an unknown URL.
 */
it('honours key rotation and refuses genuine tokens that name no session or outlived their own expiry', async () => {
  const db = await createTestDatabase('ph_e2e_upload_keys');
  const dataDir = mkdtempSync(join(tmpdir(), 'policyhub-e2e-upload-keys-'));
  const oldKey: SigningKey = { id: 'old', secret: randomBytes(32) };
  const newKey: SigningKey = { id: 'new', secret: randomBytes(32) };
  const start = (signingKeys: SigningKey[]) =>
    startSystem({
      port: 0,
      validateResponses: true,
      dataDir,
      databaseUrl: db.url,
      logLevel: 'silent',
      signingKeys,
    });
  const apiOf = (system: RunningSystem) => ({
    admin: new ApiClient(system.baseUrl, system.siteAdminToken),
    client: (token: string) => new ApiClient(system.baseUrl, token),
  });
  const uploadsOf = (system: RunningSystem, token: string) => `${system.baseUrl}/api/v2/uploads/${token}`;
  const tokenOf = (url: string) => new URL(url).pathname.split('/').pop()!;
  const sessionIdOf = async (system: RunningSystem, ownerId: string) =>
    (
      await system.services.storage!.db.query<{ id: string }>(
        'SELECT id FROM upload_sessions WHERE owner_id = $1',
        [ownerId],
      )
    ).rows[0]!.id;
  let system: RunningSystem | undefined;
  try {
    system = await start([oldKey]);
    const org = await createOrganization(apiOf(system), 'keys');
    const token = org.owner.token;
    const set = await createPolicySet(org.owner.api, org.name);
    const ws = await createWorkspace(org.owner.api, org.name);
    const newVersion = async (api: ApiClient) => {
      const res = await api.post(`/policy-sets/${set.id}/versions`);
      expect(res.status, res.text).toBe(201);
      return { id: res.body.data.id as string, upload: res.body.data.links.upload as string };
    };
    const [v1, v2, v3] = [
      await newVersion(org.owner.api),
      await newVersion(org.owner.api),
      await newVersion(org.owner.api),
    ];
    const cv = await org.owner.api.post(`/workspaces/${ws.id}/configuration-versions`, {
      data: { type: 'configuration-versions', attributes: {} },
    });
    expect(cv.status, cv.text).toBe(201);
    const cvUpload = cv.body.data.attributes['upload-url'] as string;

    // The tokens name the sessions, sealed with the one key.
    const oldTokens = new UploadTokens([oldKey]);
    const v3Session = await sessionIdOf(system, v3.id);
    expect(oldTokens.open(tokenOf(v3.upload))?.sessionId).toBe(v3Session);

    // Genuine tokens (the right key) that are still no URL of a pending upload: 404, nothing spent.
    const expiresAt = oldTokens.open(tokenOf(v3.upload))!.expiresAt;
    for (const forged of [
      oldTokens.mint(v3Session, Date.now() - 60_000),
      oldTokens.mint(`upl-${randomBytes(8).toString('hex')}`, expiresAt),
      new UploadTokens([newKey]).mint(v3Session, expiresAt),
    ]) {
      const put = await putArchive(uploadsOf(system, forged), await policyArchive());
      expect(put.status, forged).toBe(404);
      expect(put.body).toEqual({ errors: [{ status: '404', code: 'NOT_FOUND', title: 'not found' }] });
    }
    await system.close();
    system = undefined;

    // Rotation: the new key first, the old one still listed.
    system = await start([newKey, oldKey]);
    const rotated = apiOf(system).client(token);
    const rebased = (url: string) => uploadsOf(system!, tokenOf(url));
    expect((await putArchive(rebased(v1.upload), await policyArchive())).status).toBe(200);
    expect((await rotated.get(`/policy-set-versions/${v1.id}`)).body.data.attributes.status).toBe('ready');
    expect((await putArchive(rebased(cvUpload), await policyArchive())).status).toBe(200);
    // Reads mint with the new key.
    const v2Fresh = (await rotated.get(`/policy-set-versions/${v2.id}`)).body.data.links.upload as string;
    expect(new UploadTokens([newKey]).open(tokenOf(v2Fresh))?.sessionId).toBe(
      await sessionIdOf(system, v2.id),
    );
    expect(oldTokens.open(tokenOf(v2Fresh))).toBeUndefined();
    await system.close();
    system = undefined;

    // The old key removed: its URLs are unknown; the version answers a fresh one that works.
    system = await start([newKey]);
    const after = apiOf(system).client(token);
    const refused = await putArchive(uploadsOf(system, tokenOf(v3.upload)), await policyArchive());
    expect(refused.status).toBe(404);
    const v3Fresh = (await after.get(`/policy-set-versions/${v3.id}`)).body.data.links.upload as string;
    expect((await putArchive(uploadsOf(system, tokenOf(v3Fresh)), await policyArchive())).status).toBe(200);
    expect((await putArchive(uploadsOf(system, tokenOf(v2Fresh)), await policyArchive())).status).toBe(200);
  } finally {
    await system?.close();
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 180_000);
