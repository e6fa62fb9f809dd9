import { randomBytes } from 'node:crypto';
import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from './support/api.js';
import { policyArchive, putArchive, sentinelHcl, tarGzOf } from './support/archives.js';
import { createOrganization } from './support/fixtures.js';
import {
  type MultiProcessSystem,
  reportServiceOutputOnFailure,
  startMultiProcessSystem,
} from './support/multi-process.js';
import { type PendingVersion, pendingVersion, settledVersion } from './support/pipeline-probes.js';
import { isConnectionRefused, startSlowUpload } from './support/slow-upload.js';

/**
 * "Graceful shutdown drains in-flight requests": a process told to stop (SIGTERM, as an
 * orchestrator does) refuses new work at once but finishes what it has already accepted, then
 * exits cleanly. Shown for the HTTP edge (gateway) and for a gRPC service (storage), each with an
 * upload whose body is still arriving when the signal comes.
 */
let t: MultiProcessSystem;
let api: ApiClient;
let org: string;

beforeAll(async () => {
  t = await startMultiProcessSystem();
  const created = await createOrganization(t, 'drain');
  api = created.owner.api;
  org = created.name;
}, 180_000);
afterAll(() => t?.stop(), 60_000);
reportServiceOutputOnFailure(() => t);

/** A valid archive large enough to arrive in several chunks (random bytes do not compress). */
const largeArchive = () =>
  tarGzOf([
    { name: 'sentinel.hcl', content: sentinelHcl('big') },
    { name: 'policies/big.sentinel', content: randomBytes(2 * 1024 * 1024) },
  ]);

/** Resolves once storage has claimed the version's upload session: the PUT is being processed. */
const uploadInProgress = (v: PendingVersion) =>
  waitFor(async () => {
    const { rows } = await t
      .db('storage')
      .query(
        'SELECT 1 FROM upload_sessions WHERE owner_id = $1 AND claimed_by IS NOT NULL AND used_at IS NULL',
        [v.id],
      );
    return rows.length === 1;
  }, 30_000);

describe('graceful shutdown', () => {
  it('the gateway stops accepting connections on SIGTERM but completes an upload in flight', async () => {
    const v = await pendingVersion(api, org);
    const upload = startSlowUpload(v.upload, await largeArchive());
    await upload.sendFirstHalf();
    await uploadInProgress(v);

    const { exited } = t.services.gateway.signal('SIGTERM');
    await waitFor(() => isConnectionRefused(t.baseUrl), 15_000);

    const response = await upload.finish();
    expect(response.status, response.text).toBe(200);
    expect(await exited).toEqual({ code: 0, signal: null });

    await t.services.gateway.start();
    expect((await settledVersion(api, v.id)).attributes.status).toBe('ready');
  }, 120_000);

  it('storage refuses new calls on SIGTERM (a clean 503) but completes an upload in flight', async () => {
    const inFlight = await pendingVersion(api, org);
    const refused = await pendingVersion(api, org);
    const upload = startSlowUpload(inFlight.upload, await largeArchive());
    await upload.sendFirstHalf();
    await uploadInProgress(inFlight);

    const { exited } = t.services.storage.signal('SIGTERM');
    // Its ops port closes first: from then on it is draining.
    await waitFor(() => isConnectionRefused(t.services.storage.opsUrl), 15_000);
    const late = await putArchive(refused.upload, await policyArchive());
    expect(late.status, late.text).toBe(503);
    expect(late.body!.errors).toEqual([
      expect.objectContaining({ status: '503', title: 'service unavailable' }),
    ]);

    const response = await upload.finish();
    expect(response.status, response.text).toBe(200);
    expect(await exited).toEqual({ code: 0, signal: null });

    await t.services.storage.start();
    expect((await settledVersion(api, inFlight.id)).attributes.status).toBe('ready');
    // The refused PUT spent nothing: the same URL works once the gateway reaches storage again.
    const archive = await policyArchive();
    const retried = await waitFor(async () => {
      const put = await putArchive(refused.upload, archive);
      return put.status === 503 ? undefined : put;
    }, 30_000);
    expect(retried.status, retried.text).toBe(200);
    expect((await settledVersion(api, refused.id)).attributes.status).toBe('ready');
  }, 120_000);
});
