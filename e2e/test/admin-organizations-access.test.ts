import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from './support/api.js';
import { adminUpdate, idsOf } from './support/admin-organizations.js';
import { createMember, createOrganization, createWorkspace, uniqueName } from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

const NOT_FOUND = { errors: [{ status: '404', code: 'NOT_FOUND', title: 'not found' }] };

type AdminRequest = readonly [method: string, path: string, body: unknown];

/** Every admin-organization request, against organization `name`. */
const adminRequests = (name: string): AdminRequest[] => [
  ['GET', '/api/v2/admin/organizations', undefined],
  ['GET', `/api/v2/admin/organizations/${name}`, undefined],
  ['GET', `/api/v2/admin/organizations/${name}?include=owners`, undefined],
  ['PATCH', `/admin/organizations/${name}`, { data: { type: '', attributes: { 'is-disabled': true } } }],
  ['DELETE', `/admin/organizations/${name}`, undefined],
  ['GET', `/api/v2/admin/organizations/${name}/relationships/module-consumers`, undefined],
  ['GET', `/api/v2/admin/organizations/${name}/relationships/provider-consumers`, undefined],
  ['PATCH', `/admin/organizations/${name}/relationships/module-consumers`, { data: [] }],
  [
    'PUT',
    `/admin/organizations/${name}/registry-partnerships`,
    { data: { type: 'registry-partnerships', attributes: { 'module-consumers': [] } } },
  ],
];

const send = (api: ApiClient, [method, path, body]: AdminRequest) => api.request(method, path, body);

describe('admin organizations: access, disabled organizations, workspace limit, delete', () => {
  let t: TestSystem;

  beforeAll(async () => {
    t = await startTestSystem();
  });
  afterAll(() => t?.stop());

  it('answers 404 to non-admins on every admin path, for their own and for unknown organizations', async () => {
    const org = await createOrganization(t, 'own');
    const unknown = uniqueName('unknown');
    for (const name of [org.name, unknown]) {
      for (const request of adminRequests(name)) {
        const res = await send(org.owner.api, request);
        expect(res.status, `${request[0]} ${request[1]}`).toBe(404);
        expect(res.body).toEqual(NOT_FOUND);
      }
    }
    // Nothing changed: the owner still sees the organization, enabled.
    expect((await org.owner.api.get(`/organizations/${org.name}`)).status).toBe(200);
    expect(
      (await t.admin.get(`/api/v2/admin/organizations/${org.name}`)).body.data.attributes['is-disabled'],
    ).toBe(false);
  });

  it('answers 401 to requests without a valid token', async () => {
    const org = await createOrganization(t, 'anon');
    for (const request of adminRequests(org.name)) {
      const res = await send(t.anonymous, request);
      expect(res.status, `${request[0]} ${request[1]}`).toBe(401);
      expect(res.body).toEqual({ errors: [{ status: '401', code: 'UNAUTHORIZED', title: 'unauthorized' }] });
    }
    expect((await t.client('not-a-token').get('/api/v2/admin/organizations')).status).toBe(401);
  });

  it('a disabled organization is invisible to its users while the admin API still manages it; re-enabling restores access', async () => {
    const org = await createOrganization(t, 'dis');
    const member = await createMember(t, org, ['read-workspaces', 'manage-workspaces']);
    const ws = await createWorkspace(org.owner.api, org.name);
    const memberReads = [
      `/organizations/${org.name}`,
      `/organizations/${org.name}/workspaces`,
      `/workspaces/${ws.id}`,
    ];
    for (const path of memberReads) expect((await member.api.get(path)).status, path).toBe(200);

    const disable = await adminUpdate(t, org.name, { 'is-disabled': true });
    expect(disable.status, disable.text).toBe(200);
    expect(disable.body.data.attributes['is-disabled']).toBe(true);

    for (const api of [member.api, org.owner.api]) {
      for (const path of memberReads) {
        const res = await api.get(path);
        expect(res.status, path).toBe(404);
        expect(res.body).toEqual(NOT_FOUND);
      }
    }
    const create = await org.owner.api.post(`/organizations/${org.name}/workspaces`, {
      data: { type: 'workspaces', attributes: { name: uniqueName('ws') } },
    });
    expect(create.status).toBe(404);
    expect(idsOf((await org.owner.api.get('/organizations')).body)).not.toContain(org.name);

    // The admin API still reads, lists and updates it.
    expect((await t.admin.get(`/api/v2/admin/organizations/${org.name}`)).status).toBe(200);
    expect(idsOf((await t.admin.get(`/api/v2/admin/organizations?q=${org.name}`)).body)).toEqual([org.name]);
    expect((await adminUpdate(t, org.name, { 'access-beta-tools': true })).status).toBe(200);

    expect((await adminUpdate(t, org.name, { 'is-disabled': false })).status).toBe(200);
    for (const path of memberReads) expect((await member.api.get(path)).status, path).toBe(200);
  });

  it('a workspace-limit below the current count blocks new workspaces and leaves existing ones', async () => {
    const org = await createOrganization(t, 'lim');
    const existing = [
      await createWorkspace(org.owner.api, org.name),
      await createWorkspace(org.owner.api, org.name),
    ];
    const tryCreate = () =>
      org.owner.api.post(`/organizations/${org.name}/workspaces`, {
        data: { type: 'workspaces', attributes: { name: uniqueName('ws') } },
      });

    expect((await adminUpdate(t, org.name, { 'workspace-limit': 1 })).status).toBe(200);
    const blocked = await tryCreate();
    expect(blocked.status).toBe(422);
    expect(blocked.body.errors[0].detail).toMatch(/workspace limit/);
    const list = await org.owner.api.get(`/organizations/${org.name}/workspaces`);
    expect(idsOf(list.body).sort()).toEqual(existing.map((w) => w.id).sort());
    for (const w of existing) expect((await org.owner.api.get(`/workspaces/${w.id}`)).status).toBe(200);

    expect((await adminUpdate(t, org.name, { 'workspace-limit': 3 })).status).toBe(200);
    expect((await tryCreate()).status).toBe(201);
    expect((await tryCreate()).status).toBe(422);
  });

  it('workspace-limit 0 and null mean no limit', async () => {
    const org = await createOrganization(t, 'nolim');
    await createWorkspace(org.owner.api, org.name);
    expect((await adminUpdate(t, org.name, { 'workspace-limit': 0 })).status).toBe(200);
    await createWorkspace(org.owner.api, org.name);
    await createWorkspace(org.owner.api, org.name);
    expect((await adminUpdate(t, org.name, { 'workspace-limit': 1 })).status).toBe(200);
    expect((await adminUpdate(t, org.name, { 'workspace-limit': null })).status).toBe(200);
    await createWorkspace(org.owner.api, org.name);
    expect(
      (await org.owner.api.get(`/organizations/${org.name}/workspaces`)).body.meta.pagination['total-count'],
    ).toBe(4);
  });

  it('DELETE answers 204 and the organization is then gone from the admin and normal APIs', async () => {
    const org = await createOrganization(t, 'del');
    const ws = await createWorkspace(org.owner.api, org.name);
    const res = await t.admin.delete(`/admin/organizations/${org.name}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');

    expect((await t.admin.get(`/api/v2/admin/organizations/${org.name}`)).status).toBe(404);
    expect((await t.admin.get(`/api/v2/admin/organizations?q=${org.name}`)).body.data).toEqual([]);
    expect((await t.admin.get(`/organizations/${org.name}`)).status).toBe(404);
    expect((await org.owner.api.get(`/organizations/${org.name}`)).status).toBe(404);
    expect((await org.owner.api.get(`/workspaces/${ws.id}`)).status).toBe(404);
    expect((await t.admin.delete(`/admin/organizations/${org.name}`)).status).toBe(404);
  });

  it('DELETE of a disabled organization works too', async () => {
    const org = await createOrganization(t, 'disdel');
    await adminUpdate(t, org.name, { 'is-disabled': true });
    expect((await t.admin.delete(`/api/v2/admin/organizations/${org.name}`)).status).toBe(204);
    expect((await t.admin.get(`/api/v2/admin/organizations/${org.name}`)).status).toBe(404);
  });
});
