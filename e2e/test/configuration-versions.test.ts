import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tarOf } from './support/archives.js';
import { createMember, createOrganization, createWorkspace } from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * Configuration versions over HTTP only, as go-tfe and CI scripts drive them: create → PUT the
 * tar.gz to the upload URL (no token) → `uploaded` (or `errored`), download, runs queued by the
 * upload or created on it explicitly.
 */
let t: TestSystem;
let org: Awaited<ReturnType<typeof createOrganization>>;
beforeAll(async () => {
  t = await startTestSystem();
  org = await createOrganization(t, 'cv');
});
afterAll(() => t?.stop());

const configArchive = () =>
  tarOf([{ name: 'main.tf', content: 'resource "null_resource" "x" {}\n' }]).then(gzipSync);

async function createCv(workspaceId: string, attributes: Record<string, unknown> = {}) {
  const res = await org.owner.api.post(`/workspaces/${workspaceId}/configuration-versions`, {
    data: { type: 'configuration-versions', attributes },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

/** PUT as go-tfe does: octet-stream, no Authorization header. */
const upload = (url: string, body: Uint8Array) =>
  t.anonymous.request('PUT', url, body, { 'content-type': 'application/octet-stream' });

describe('configuration versions', () => {
  it('are created pending with upstream attributes and a single-use upload URL; the upload makes them uploaded', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const cv = await createCv(ws.id, { 'auto-queue-runs': false });
    expect(cv.id).toMatch(/^cv-[0-9A-Za-z]{16}$/);
    expect(cv.type).toBe('configuration-versions');
    expect(cv.attributes).toMatchObject({
      'auto-queue-runs': false,
      error: null,
      'error-message': null,
      source: 'tfe-api',
      speculative: false,
      provisional: false,
      status: 'pending',
    });
    expect(Object.keys(cv.attributes['status-timestamps'])).toEqual(['pending-at']);
    expect(cv.attributes['upload-url']).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/api\/v2\/uploads\/[A-Za-z0-9_-]{60,}$/,
    );
    expect(cv.links).toEqual({
      self: `/api/v2/configuration-versions/${cv.id}`,
      download: `/api/v2/configuration-versions/${cv.id}/download`,
    });
    // Shown identically until the upload, but for the URL: minted afresh on every read (as
    // upstream does), each one a URL of the same upload.
    const reread = (await org.owner.api.get(`/configuration-versions/${cv.id}`)).body.data;
    expect(reread).toEqual({
      ...cv,
      attributes: {
        ...cv.attributes,
        'upload-url': expect.stringMatching(/\/api\/v2\/uploads\/[A-Za-z0-9_-]{60,}$/),
      },
    });
    expect(reread.attributes['upload-url']).not.toBe(cv.attributes['upload-url']);

    // Not downloadable before the upload.
    expect((await org.owner.api.get(`/configuration-versions/${cv.id}/download`)).status).toBe(404);

    const archive = await configArchive();
    const put = await upload(cv.attributes['upload-url'], archive);
    expect(put.status, put.text).toBe(200);
    const shown = (await org.owner.api.get(`/configuration-versions/${cv.id}`)).body.data;
    expect(shown.attributes).toMatchObject({ status: 'uploaded', 'upload-url': null, error: null });
    expect(Object.keys(shown.attributes['status-timestamps']).sort()).toEqual(
      ['finished-at', 'pending-at', 'uploaded-at'].sort(),
    );

    // The URL was for one upload only.
    expect((await upload(cv.attributes['upload-url'], archive)).status).toBe(409);

    const download = await fetch(`${t.system.baseUrl}/api/v2/configuration-versions/${cv.id}/download`, {
      headers: { authorization: `Bearer ${org.owner.token}` },
    });
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(archive)).toBe(true);

    // auto-queue-runs false: no run was queued.
    expect((await org.owner.api.get(`/workspaces/${ws.id}/runs`)).body.data).toEqual([]);
  });

  it('a bad archive leaves the version errored with the reason, and a run cannot use it', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const cv = await createCv(ws.id);
    const put = await upload(cv.attributes['upload-url'], Buffer.from('this is not a tar.gz'));
    expect(put.status).toBe(422);
    const shown = (await org.owner.api.get(`/configuration-versions/${cv.id}`)).body.data;
    expect(shown.attributes).toMatchObject({
      status: 'errored',
      error: 'STORAGE_ARCHIVE_NOT_GZIP',
      'upload-url': null,
    });
    expect(shown.attributes['error-message']).toMatch(/gzip/);
    expect(shown.attributes['status-timestamps']).toHaveProperty('errored-at');
    expect((await org.owner.api.get(`/configuration-versions/${cv.id}/download`)).status).toBe(404);
    // auto-queue-runs (the default) queues nothing for a failed upload.
    expect((await org.owner.api.get(`/workspaces/${ws.id}/runs`)).body.data).toEqual([]);
  });

  it('an upload with auto-queue-runs queues a run on it; a speculative one a plan-only run', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const cv = await createCv(ws.id);
    expect(cv.attributes['auto-queue-runs']).toBe(true);
    expect((await upload(cv.attributes['upload-url'], await configArchive())).status).toBe(200);
    const runs = (await org.owner.api.get(`/workspaces/${ws.id}/runs`)).body.data;
    expect(runs).toHaveLength(1);
    expect(runs[0].attributes).toMatchObject({ status: 'pending', 'plan-only': false });
    expect(runs[0].relationships['configuration-version']).toEqual({
      data: { id: cv.id, type: 'configuration-versions' },
    });
    expect(runs[0].relationships.plan.data).toMatchObject({ type: 'plans' });
    expect(runs[0].attributes.message).toContain(cv.id);

    const speculative = await createCv(ws.id, { speculative: true });
    expect((await upload(speculative.attributes['upload-url'], await configArchive())).status).toBe(200);
    const newest = (await org.owner.api.get(`/workspaces/${ws.id}/runs`)).body.data[0];
    expect(newest.relationships['configuration-version'].data.id).toBe(speculative.id);
    expect(newest.attributes['plan-only']).toBe(true);
  });

  it('POST /runs takes an uploaded configuration version of the same workspace, and refuses others with upstream wording', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const other = await createWorkspace(org.owner.api, org.name);
    const runWith = (workspaceId: string, cvId: string) =>
      org.owner.api.post('/runs', {
        data: {
          type: 'runs',
          attributes: { message: 'explicit' },
          relationships: {
            workspace: { data: { type: 'workspaces', id: workspaceId } },
            'configuration-version': { data: { type: 'configuration-versions', id: cvId } },
          },
        },
      });

    const pending = await createCv(ws.id, { 'auto-queue-runs': false });
    const notYet = await runWith(ws.id, pending.id);
    expect(notYet.status).toBe(422);
    expect(notYet.body.errors[0]).toMatchObject({
      status: '422',
      title: 'unprocessable entity',
      source: { pointer: '/data/relationships/configuration-version/data/id' },
    });
    expect(notYet.body.errors[0].detail).toMatch(/^invalid run parameters: .* is pending, not uploaded$/);

    expect((await upload(pending.attributes['upload-url'], await configArchive())).status).toBe(200);
    const elsewhere = await runWith(other.id, pending.id);
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.errors[0].detail).toMatch(
      /^invalid run parameters: .* does not belong to this workspace$/,
    );
    const unknown = await runWith(ws.id, 'cv-0000000000000000');
    expect(unknown.body.errors[0].detail).toBe(
      elsewhere.body.errors[0].detail.replace(pending.id, 'cv-0000000000000000'),
    );

    const wrongType = await org.owner.api.post('/runs', {
      data: {
        type: 'runs',
        relationships: {
          workspace: { data: { type: 'workspaces', id: ws.id } },
          'configuration-version': { data: { type: 'workspaces', id: pending.id } },
        },
      },
    });
    expect(wrongType.status).toBe(422);

    const created = await runWith(ws.id, pending.id);
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.relationships['configuration-version'].data).toEqual({
      id: pending.id,
      type: 'configuration-versions',
    });
    expect(
      (await org.owner.api.get(`/workspaces/${ws.id}/runs`)).body.data.map((r: { id: string }) => r.id),
    ).toEqual([created.body.data.id]);
  });

  it('lists a workspace’s versions newest first, paginated like every list', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createCv(ws.id, { 'auto-queue-runs': false })).id);
    const first = await org.owner.api.get(`/workspaces/${ws.id}/configuration-versions?page%5Bsize%5D=2`);
    expect(first.status).toBe(200);
    expect(first.body.data.map((v: { id: string }) => v.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.meta.pagination).toMatchObject({
      'current-page': 1,
      'next-page': 2,
      'prev-page': null,
      'total-pages': 2,
      'total-count': 3,
    });
    expect(first.body.links.next).toContain('page%5Bnumber%5D=2');
    const second = await org.owner.api.get(first.body.links.next);
    expect(second.body.data.map((v: { id: string }) => v.id)).toEqual([ids[0]]);
    const past = await org.owner.api.get(`/workspaces/${ws.id}/configuration-versions?page%5Bnumber%5D=9`);
    expect(past.body).toMatchObject({
      data: [],
      meta: { pagination: { 'current-page': 9, 'total-count': 3 } },
    });
    expect(
      (await org.owner.api.get(`/workspaces/${ws.id}/configuration-versions?page%5Bsize%5D=101`)).status,
    ).toBe(422);
    // The list shows each version exactly as the show does, but for the upload URL: minted
    // afresh on every read.
    const shown = (await org.owner.api.get(`/configuration-versions/${ids[0]}`)).body.data;
    expect(second.body.data[0]).toEqual({
      ...shown,
      attributes: {
        ...shown.attributes,
        'upload-url': expect.stringMatching(/\/api\/v2\/uploads\/[A-Za-z0-9_-]{60,}$/),
      },
    });
  });

  it('reading needs read-runs, creating needs manage-workspaces; others get 404 and nothing is created', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const cv = await createCv(ws.id, { 'auto-queue-runs': false });
    const reader = await createMember(t, org, ['read-runs']);
    const manager = await createMember(t, org, ['manage-workspaces']);
    const outsider = await createOrganization(t, 'cv-out');

    expect((await reader.api.get(`/configuration-versions/${cv.id}`)).status).toBe(200);
    expect((await reader.api.get(`/workspaces/${ws.id}/configuration-versions`)).status).toBe(200);
    const denied = await reader.api.post(`/workspaces/${ws.id}/configuration-versions`);
    expect(denied.status).toBe(404);
    expect(denied.body).toEqual({ errors: [{ status: '404', code: 'NOT_FOUND', title: 'not found' }] });
    expect((await manager.api.get(`/configuration-versions/${cv.id}`)).status).toBe(404);
    expect((await outsider.owner.api.get(`/configuration-versions/${cv.id}`)).status).toBe(404);
    expect((await outsider.owner.api.get(`/configuration-versions/${cv.id}/download`)).status).toBe(404);
    expect((await t.anonymous.get(`/configuration-versions/${cv.id}`)).status).toBe(401);

    // A body-less POST (as some clients send) takes upstream's defaults.
    const bodyless = await manager.api.post(`/workspaces/${ws.id}/configuration-versions`);
    expect(bodyless.status, bodyless.text).toBe(201);
    expect(bodyless.body.data.attributes).toMatchObject({ 'auto-queue-runs': true, speculative: false });
    expect(
      (await org.owner.api.get(`/workspaces/${ws.id}/configuration-versions`)).body.meta.pagination[
        'total-count'
      ],
    ).toBe(2);
  });

  it('a deleted workspace takes its versions along and its upload URLs stop working', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const cv = await createCv(ws.id);
    expect((await org.owner.api.delete(`/workspaces/${ws.id}`)).status).toBe(204);
    expect((await org.owner.api.get(`/configuration-versions/${cv.id}`)).status).toBe(404);
    expect((await upload(cv.attributes['upload-url'], await configArchive())).status).toBe(404);
  });
});
