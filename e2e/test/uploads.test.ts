import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { rawFile, rawPax, rawTar, waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from './support/api.js';
import {
  type ArchiveEntry,
  policyArchive,
  putArchive,
  sentinelHcl,
  tarGzOf,
  tarOf,
} from './support/archives.js';
import { createOrganization, createPolicySet, type TestUser } from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

// Small limits for this file's system (each test file runs in its own process), so hostile
// archives that pass a limit stay small. Defaults are in docs/configuration.md (storage).
const LIMITS = {
  UPLOAD_MAX_BYTES: 256 * 1024,
  UPLOAD_MAX_EXPANDED_BYTES: 1024 * 1024,
  UPLOAD_MAX_ENTRIES: 50,
};

let t: TestSystem;
let api: ApiClient;
let orgName: string;

beforeAll(async () => {
  for (const [k, v] of Object.entries(LIMITS)) process.env[k] = String(v);
  t = await startTestSystem();
  const org = await createOrganization(t, 'uploads');
  api = org.owner.api;
  orgName = org.name;
});
afterAll(async () => {
  await t?.stop();
  for (const k of Object.keys(LIMITS)) delete process.env[k];
});

/** A fresh set with one pending version: its id, upload URL and set id. */
async function pendingVersion() {
  const set = await createPolicySet(api, orgName);
  const res = await api.post(`/policy-sets/${set.id}/versions`);
  expect(res.status, res.text).toBe(201);
  return { setId: set.id, id: res.body.data.id as string, upload: res.body.data.links.upload as string };
}

const versionOf = async (id: string) => (await api.get(`/policy-set-versions/${id}`)).body.data;

const hostile: Array<[string, () => Promise<Buffer>, number, string]> = [
  [
    'a decompression bomb',
    () => tarGzOf([{ name: 'zeros', content: Buffer.alloc(8 * 1024 * 1024) }]),
    422,
    'STORAGE_ARCHIVE_EXPANDED_TOO_LARGE',
  ],
  [
    'a path traversal',
    () => tarGzOf([{ name: '../../../etc/cron.d/x', content: 'x' }]),
    422,
    'STORAGE_ARCHIVE_PATH_TRAVERSAL',
  ],
  [
    'an absolute path',
    () => tarGzOf([{ name: '/etc/passwd', content: 'x' }]),
    422,
    'STORAGE_ARCHIVE_ABSOLUTE_PATH',
  ],
  [
    'a symlink escaping the archive',
    () =>
      tarGzOf([
        { name: 'main.sentinel', content: 'x' },
        { name: 'keys', type: 'symlink', linkname: '../../../root/.ssh' },
      ]),
    422,
    'STORAGE_ARCHIVE_LINK_ESCAPE',
  ],
  [
    'a file written through a symlink',
    () =>
      tarGzOf([
        { name: 'up', type: 'symlink', linkname: '..' },
        { name: 'up/evil', content: 'x' },
      ]),
    422,
    'STORAGE_ARCHIVE_LINK_ESCAPE',
  ],
  [
    'a pax global header that renames the files after it',
    async () => gzipSync(rawTar(rawPax([['path', '../../escaped']], 'g'), rawFile('main.sentinel', 'x'))),
    422,
    'STORAGE_ARCHIVE_GLOBAL_HEADER',
  ],
  [
    'links that escape only on a case-insensitive file system',
    () =>
      tarGzOf([
        { name: 'main.sentinel', content: 'x' },
        { name: 'dir', type: 'symlink', linkname: '.' },
        { name: 'x', type: 'symlink', linkname: 'DIR/..' },
      ]),
    422,
    'STORAGE_ARCHIVE_LINK_ESCAPE',
  ],
  [
    'a device file',
    () =>
      tarGzOf([
        { name: 'f', content: 'x' },
        { name: 'dev/sda', type: 'block-device' },
      ]),
    422,
    'STORAGE_ARCHIVE_SPECIAL_FILE',
  ],
  [
    'truncated gzip',
    async () => (await policyArchive()).subarray(0, 60),
    422,
    'STORAGE_ARCHIVE_CORRUPT_GZIP',
  ],
  ['a tar that is not gzipped', () => tarOf([{ name: 'f', content: 'x' }]), 422, 'STORAGE_ARCHIVE_NOT_GZIP'],
  ['plain text', async () => Buffer.from('this is not an archive'), 422, 'STORAGE_ARCHIVE_NOT_GZIP'],
  ['an empty body', async () => Buffer.alloc(0), 422, 'STORAGE_ARCHIVE_NOT_GZIP'],
  [
    'an archive without files',
    () => tarGzOf([{ name: 'policies/', type: 'directory' }]),
    422,
    'STORAGE_ARCHIVE_EMPTY',
  ],
  [
    'too many entries',
    () =>
      tarGzOf(Array.from({ length: 51 }, (_, i): ArchiveEntry => ({ name: `p${i}.sentinel`, content: 'x' }))),
    422,
    'STORAGE_ARCHIVE_TOO_MANY_ENTRIES',
  ],
  [
    'an archive over the size limit',
    () => tarGzOf([{ name: 'noise', content: randomBytes(512 * 1024) }]),
    413,
    'STORAGE_ARCHIVE_TOO_LARGE',
  ],
];

describe('hostile and broken archives', () => {
  it.each(hostile)(
    'rejects %s: a clear error, the version errored, never ready',
    async (_label, build, status, code) => {
      const v = await pendingVersion();
      const put = await putArchive(v.upload, await build());
      expect(put.status, put.text).toBe(status);
      expect(put.body.errors).toHaveLength(1);
      expect(put.body.errors[0]).toMatchObject({
        status: String(status),
        detail: expect.stringMatching(/^the (archive|upload|gzip)/),
      });

      const version = await versionOf(v.id);
      expect(version.attributes).toMatchObject({
        status: 'errored',
        error: code,
        'error-message': put.body.errors[0]?.detail,
        'status-timestamps': { 'errored-at': expect.any(String) },
        upload: null,
      });
      const set = (await api.get(`/policy-sets/${v.setId}`)).body.data;
      expect(set.relationships['current-version'].data).toBeNull();
      expect(set.relationships['newest-version'].data.id).toBe(v.id);
    },
  );
});

describe('upload URLs', () => {
  it('ignores the Content-Type: none, JSON and a malformed one all upload the raw body', async () => {
    for (const contentType of [null, 'application/json', 'application/vnd.api+json', ';;; nonsense']) {
      const v = await pendingVersion();
      const put = await putArchive(v.upload, await policyArchive(), contentType);
      expect(put.status, `${contentType}: ${put.text}`).toBe(200);
      expect((await versionOf(v.id)).attributes.status).toBe('ready');
    }
  });

  it('accepts each URL once: a second PUT is 409 and the version keeps its archive', async () => {
    const v = await pendingVersion();
    expect((await putArchive(v.upload, await policyArchive())).status).toBe(200);
    const before = await versionOf(v.id);
    const again = await putArchive(v.upload, await policyArchive('main = rule { false }\n'));
    expect(again.status).toBe(409);
    expect(again.body.errors[0]?.detail).toMatch(/already been used/);
    expect(await versionOf(v.id)).toEqual(before);
  });

  it('answers 404 for an unknown or malformed upload URL', async () => {
    for (const token of [randomBytes(32).toString('base64url'), 'nope', '%2e%2e%2f%2e%2e']) {
      const put = await putArchive(`${t.system.baseUrl}/api/v2/uploads/${token}`, await policyArchive());
      expect(put.status).toBe(404);
      expect(put.body).toEqual({ errors: [{ status: '404', code: 'NOT_FOUND', title: 'not found' }] });
    }
  });

  it('refuses an expired URL with 409, stores nothing, and stops showing it', async () => {
    const v = await pendingVersion();
    // Time travel: the URL's hour is over (storage enforces it; policy-sets stops showing it).
    const hourAgo = "now() - interval '1 second'";
    await t.system.services.storage!.db.query(
      `UPDATE upload_sessions SET expires_at = ${hourAgo} WHERE owner_id = $1`,
      [v.id],
    );
    await t.system.services['policy-sets']!.db.query(
      `UPDATE policy_set_versions SET upload_expires_at = ${hourAgo} WHERE id = $1`,
      [v.id],
    );
    const put = await putArchive(v.upload, await policyArchive());
    expect(put.status).toBe(409);
    expect(put.body.errors[0]?.detail).toMatch(/expired at .*create a new policy set version/);
    const version = await versionOf(v.id);
    expect(version.attributes).toMatchObject({ status: 'pending', upload: null });
    expect(version.links.upload).toBeNull();
    const { rows } = await t.system.services.storage!.db.query('SELECT 1 FROM objects WHERE key LIKE $1', [
      `%/${v.id}.tar.gz`,
    ]);
    expect(rows).toHaveLength(0);
  });

  it('keeps the URL usable when the client goes away in the middle of the upload', async () => {
    const v = await pendingVersion();
    const archive = await tarGzOf([{ name: 'big.sentinel', content: randomBytes(100 * 1024) }]);
    await new Promise<void>((resolve) => {
      const req = http.request(v.upload, {
        method: 'PUT',
        headers: { 'content-length': String(archive.length) },
      });
      req.on('error', () => resolve());
      req.write(archive.subarray(0, 20 * 1024), () => setTimeout(() => req.destroy(), 50));
      req.on('close', () => resolve());
    });
    expect((await versionOf(v.id)).attributes.status).toBe('pending');
    // Storage releases the URL as soon as it sees the cancellation.
    const put = await waitFor(async () => {
      const res = await putArchive(
        v.upload,
        gzipSync(
          await tarOf([
            { name: 'sentinel.hcl', content: sentinelHcl('main') },
            { name: 'policies/main.sentinel', content: 'main = rule { true }\n' },
          ]),
        ),
      );
      return res.status === 409 ? undefined : res;
    });
    expect(put.status, put.text).toBe(200);
    expect((await versionOf(v.id)).attributes.status).toBe('ready');
  });
});

describe('uploads for disabled or deleted organizations and sets', () => {
  let org: { name: string; owner: TestUser };
  beforeAll(async () => {
    org = await createOrganization(t, 'uploads-off');
  });

  const setDisabled = async (isDisabled: boolean) => {
    const res = await t.admin.patch(`/admin/organizations/${org.name}`, {
      data: { type: 'organizations', attributes: { 'is-disabled': isDisabled } },
    });
    expect(res.status, res.text).toBe(200);
  };
  const newVersion = async (setId: string) => {
    const res = await org.owner.api.post(`/policy-sets/${setId}/versions`);
    expect(res.status, res.text).toBe(201);
    return { id: res.body.data.id as string, upload: res.body.data.links.upload as string };
  };
  const storedObjects = async (versionId: string) =>
    (
      await t.system.services.storage!.db.query('SELECT key FROM objects WHERE key LIKE $1', [
        `%/${versionId}.tar.gz`,
      ])
    ).rows;

  it('refuses the upload while the organization is disabled, changes nothing, and takes it once enabled', async () => {
    const set = await createPolicySet(org.owner.api, org.name);
    const first = await newVersion(set.id);
    expect((await putArchive(first.upload, await policyArchive())).status).toBe(200);
    const pending = await newVersion(set.id);

    await setDisabled(true);
    try {
      const put = await putArchive(pending.upload, await policyArchive('main = rule { false }\n'));
      expect(put.status, put.text).toBe(409);
      expect(put.body.errors).toEqual([
        {
          status: '409',
          code: 'STORAGE_UPLOAD_ORGANIZATION_DISABLED',
          title: 'conflict',
          detail: expect.stringMatching(/organization of this upload is disabled; nothing was stored/),
        },
      ]);
      expect(await storedObjects(pending.id)).toEqual([]);
      // The owner cannot look (the organization is hidden); a site admin sees nothing changed.
      expect((await org.owner.api.get(`/policy-sets/${set.id}`)).status).toBe(404);
      const shown = await t.admin.get(`/policy-sets/${set.id}`);
      expect(shown.body.data.relationships['current-version'].data.id).toBe(first.id);
      const version = await t.admin.get(`/policy-set-versions/${pending.id}`);
      expect(version.body.data.attributes.status).toBe('pending');
    } finally {
      await setDisabled(false);
    }

    const put = await putArchive(pending.upload, await policyArchive());
    expect(put.status, put.text).toBe(200);
    expect((await org.owner.api.get(`/policy-set-versions/${pending.id}`)).body.data.attributes.status).toBe(
      'ready',
    );
    const shown = await org.owner.api.get(`/policy-sets/${set.id}`);
    expect(shown.body.data.relationships['current-version'].data.id).toBe(pending.id);
  });

  it('answers 404 once the set or the organization is deleted, and stores nothing', async () => {
    const set = await createPolicySet(org.owner.api, org.name);
    const pending = await newVersion(set.id);
    expect((await org.owner.api.delete(`/policy-sets/${set.id}`)).status).toBe(204);
    const afterSet = await putArchive(pending.upload, await policyArchive());
    expect(afterSet.status, afterSet.text).toBe(404);
    expect(await storedObjects(pending.id)).toEqual([]);

    const doomed = await createOrganization(t, 'uploads-gone');
    const doomedSet = await createPolicySet(doomed.owner.api, doomed.name);
    const res = await doomed.owner.api.post(`/policy-sets/${doomedSet.id}/versions`);
    expect(res.status, res.text).toBe(201);
    expect((await t.admin.delete(`/admin/organizations/${doomed.name}`)).status).toBe(204);
    const afterOrg = await putArchive(res.body.data.links.upload, await policyArchive());
    expect(afterOrg.status, afterOrg.text).toBe(404);
    expect(await storedObjects(res.body.data.id)).toEqual([]);
  });
});
