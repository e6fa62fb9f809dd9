import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from './support/api.js';
import { policyArchive, putArchive } from './support/archives.js';
import { createOrganization, createPolicySet, createWorkspace } from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * A version whose upload URL expired without an upload used to stay `pending` for ever.
 * Storage's upload sweeper settles the URL (ADR 0024) and the version becomes `errored`, saying
 * why. Time is driven by settings, not by waiting an hour: policy set version URLs live two
 * seconds here and the sweeper runs every second.
 */
const URL_TTL_MS = 2_000;
const SETTINGS = { UPLOAD_SWEEP_INTERVAL_SECONDS: '1' };
const previous: Record<string, string | undefined> = {};

let t: TestSystem;
let api: ApiClient;
let orgName: string;

beforeAll(async () => {
  for (const [name, value] of Object.entries(SETTINGS)) {
    previous[name] = process.env[name];
    process.env[name] = value;
  }
  t = await startTestSystem({ uploadUrlTtlMs: URL_TTL_MS });
  const org = await createOrganization(t, 'expiry');
  api = org.owner.api;
  orgName = org.name;
});
afterAll(async () => {
  await t?.stop();
  for (const [name, value] of Object.entries(previous)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

const SETTLE_MS = 20_000;

describe('upload URLs that expire unused', () => {
  it('turn a pending policy set version errored, with the reason, and the URL is refused', async () => {
    const set = await createPolicySet(api, orgName);
    const created = await api.post(`/policy-sets/${set.id}/versions`);
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id as string;
    const upload = created.body.data.links.upload as string;

    const errored = await waitFor(
      async () => {
        const res = await api.get(`/policy-set-versions/${id}`);
        return res.body.data.attributes.status === 'pending' ? undefined : res.body.data;
      },
      SETTLE_MS,
      200,
    );
    expect(errored.attributes).toMatchObject({
      status: 'errored',
      error: 'STORAGE_UPLOAD_EXPIRED',
      'error-message': expect.stringMatching(
        /^The upload URL expired at .+ without an upload; create a new policy set version to upload again\.$/,
      ),
      'status-timestamps': { 'pending-at': expect.any(String), 'errored-at': expect.any(String) },
    });
    expect(errored.links.upload ?? null).toBeNull();

    const late = await putArchive(upload, await policyArchive());
    expect(late.status).toBe(409);
    expect(late.body.errors[0]?.detail).toMatch(/expired/);

    // The set still has no current version; the errored one is its newest.
    const shown = await api.get(`/policy-sets/${set.id}`);
    expect(shown.body.data.relationships['current-version'].data).toBeNull();
    expect(shown.body.data.relationships['newest-version'].data.id).toBe(id);
  });

  it('turn a pending configuration version errored too', async () => {
    const ws = await createWorkspace(api, orgName);
    const created = await api.post(`/workspaces/${ws.id}/configuration-versions`, {
      data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false } },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id as string;
    // Configuration version URLs keep the fixed hour; move this one's expiry into the past as an
    // hour would, in storage's own table.
    await t.system.services.storage!.db.query(
      "UPDATE upload_sessions SET expires_at = now() - interval '1 second' WHERE owner_id = $1",
      [id],
    );
    const errored = await waitFor(
      async () => {
        const res = await api.get(`/configuration-versions/${id}`);
        return res.body.data.attributes.status === 'pending' ? undefined : res.body.data;
      },
      SETTLE_MS,
      200,
    );
    expect(errored.attributes).toMatchObject({
      status: 'errored',
      error: 'STORAGE_UPLOAD_EXPIRED',
      'error-message': expect.stringContaining('create a new configuration version'),
    });
  });

  it('leave versions that were uploaded in time alone', async () => {
    const set = await createPolicySet(api, orgName);
    const created = await api.post(`/policy-sets/${set.id}/versions`);
    const id = created.body.data.id as string;
    expect((await putArchive(created.body.data.links.upload, await policyArchive())).status).toBe(200);
    // Two more sweeps after the URL's expiry change nothing.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    expect((await api.get(`/policy-set-versions/${id}`)).body.data.attributes.status).toBe('ready');
  });
});
