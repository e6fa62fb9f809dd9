import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSystem } from '@policyhub/embedded';
import { createTestDatabase } from '@policyhub/testing';
import { expect, it } from 'vitest';
import { ApiClient } from './support/api.js';
import { policyArchive, putArchive } from './support/archives.js';

/**
 * Embedded mode keeps events only in outboxes: an event that could not be relayed before the
 * process stopped must be delivered after the next start, once every consumer is subscribed.
 */
it('delivers an upload outcome left in the outbox by a stopped system at the next start', async () => {
  const db = await createTestDatabase('ph_e2e_restart');
  const dataDir = mkdtempSync(join(tmpdir(), 'policyhub-e2e-restart-'));
  const start = () =>
    startSystem({ port: 0, validateResponses: true, dataDir, databaseUrl: db.url, logLevel: 'silent' });
  try {
    const first = await start();
    const admin = new ApiClient(first.baseUrl, first.siteAdminToken);
    expect(
      (
        await admin.post('/organizations', {
          data: { type: 'organizations', attributes: { name: 'restart', email: 'r@example.com' } },
        })
      ).status,
    ).toBe(201);
    const set = await admin.post('/organizations/restart/policy-sets', {
      data: { type: 'policy-sets', attributes: { name: 's' } },
    });
    const version = await admin.post(`/policy-sets/${set.body.data.id}/versions`);
    // Storage's relay dies before it publishes: the PUT is acknowledged, the event waits in its outbox.
    await first.services.storage!.relay.stop();
    expect((await putArchive(version.body.data.links.upload, await policyArchive())).status).toBe(200);
    expect(
      (await admin.get(`/policy-set-versions/${version.body.data.id}`)).body.data.attributes.status,
    ).toBe('pending');
    await first.close();

    const second = await start();
    try {
      const again = new ApiClient(second.baseUrl, second.siteAdminToken);
      const shown = await again.get(`/policy-set-versions/${version.body.data.id}`);
      expect(shown.body.data.attributes.status).toBe('ready');
      const set2 = await again.get(`/policy-sets/${set.body.data.id}`);
      expect(set2.body.data.relationships['current-version'].data.id).toBe(version.body.data.id);
    } finally {
      await second.close();
    }
  } finally {
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
