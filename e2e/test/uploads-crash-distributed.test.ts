import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from './support/api.js';
import { policyArchive, putArchive } from './support/archives.js';
import { createOrganization } from './support/fixtures.js';
import {
  type MultiProcessSystem,
  reportServiceOutputOnFailure,
  startMultiProcessSystem,
} from './support/multi-process.js';
import { pendingVersion, SETTLE_TIMEOUT_MS, settledVersion } from './support/pipeline-probes.js';
import { startSlowUpload } from './support/slow-upload.js';

/**
 * Storage SIGKILLed in the middle of an upload. The dead upload used to hold its URL
 * for the whole upload timeout (15 minutes of 409 "in progress") and leave its partial staging
 * file for ever. Now the upload holds the URL with a short lease it renews while it runs, and
 * the upload sweeper removes partial files no live process keeps fresh (ADR 0024, 0037): a retry
 * after the restart works within a lease, and the partial file goes.
 */
const LEASE_SECONDS = 2;

let t: MultiProcessSystem;
let api: ApiClient;
let org: string;
let stagingDir: string;

const filesIn = (dir: string, suffix: string) => {
  try {
    return readdirSync(dir).filter((name) => name.endsWith(suffix));
  } catch {
    return [];
  }
};
/**
 * The partial files of uploads in progress: a filesystem object store takes the body straight
 * into its own temporary directory (ADR 0037); a store that needs the size first stages it in
 * UPLOAD_TMP_DIR.
 */
const stagingFiles = () => [
  ...filesIn(stagingDir, '.upload'),
  ...filesIn(join(t.dataDir, 'objects', '.tmp'), '.part'),
];

beforeAll(async () => {
  stagingDir = join(mkdtempSync(join(tmpdir(), 'policyhub-staging-')), 'staging');
  t = await startMultiProcessSystem({
    env: {
      storage: {
        UPLOAD_TMP_DIR: stagingDir,
        UPLOAD_LEASE_SECONDS: String(LEASE_SECONDS),
        UPLOAD_SWEEP_INTERVAL_SECONDS: '1',
      },
    },
  });
  const created = await createOrganization(t, 'crashup');
  api = created.owner.api;
  org = created.name;
}, 180_000);
afterAll(async () => {
  await t?.stop();
  rmSync(join(stagingDir, '..'), { recursive: true, force: true });
}, 60_000);
reportServiceOutputOnFailure(() => t);

describe('storage dies mid-upload', () => {
  it('a retry after the restart succeeds within a lease, and the partial staging file is removed', async () => {
    const v = await pendingVersion(api, org);
    const archive = await policyArchive();
    const slow = startSlowUpload(v.upload, archive);
    await slow.sendFirstHalf();
    // Storage holds the URL and is writing the body to a partial file.
    await waitFor(() => stagingFiles().length > 0 || undefined, 20_000);
    const partial = stagingFiles();

    await t.services.storage.kill();
    await slow.finish().catch(() => {});
    await t.services.storage.start();

    // The crashed upload's hold lapses within a lease: the client's retry goes through.
    const retried = await waitFor(
      async () => {
        const res = await putArchive(v.upload, archive);
        if (res.status === 409 && /in progress/.test(res.text)) return undefined;
        return res;
      },
      10 * LEASE_SECONDS * 1000,
      250,
    );
    expect(retried.status, retried.text).toBe(200);
    expect((await settledVersion(api, v.id, SETTLE_TIMEOUT_MS)).attributes.status).toBe('ready');

    // The restarted storage's sweeper removed what the dead process left behind.
    await waitFor(() => partial.every((name) => !stagingFiles().includes(name)) || undefined, 20_000);
  }, 120_000);
});
