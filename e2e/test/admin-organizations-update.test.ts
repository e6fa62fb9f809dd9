import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminUpdate, createOrganizationAs } from './support/admin-organizations.js';
import { uniqueName } from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/** Every attribute of the admin view, with its default. */
const DEFAULTS = {
  'access-beta-tools': false,
  'is-disabled': false,
  'sso-enabled': false,
  'global-module-sharing': false,
  'global-provider-sharing': false,
  'engine-worker-sudo-enabled': false,
  'workspace-limit': null,
  'apply-timeout': null,
  'plan-timeout': null,
  'engine-build-worker-apply-timeout': null,
  'engine-build-worker-plan-timeout': null,
};

describe('GET and PATCH /admin/organizations/:name', () => {
  let t: TestSystem;
  const newOrg = () => createOrganizationAs(t.admin, uniqueName('upd'));
  const show = async (name: string) => {
    const res = await t.admin.get(`/api/v2/admin/organizations/${name}`);
    expect(res.status, res.text).toBe(200);
    return res.body.data;
  };

  beforeAll(async () => {
    t = await startTestSystem();
  });
  afterAll(() => t?.stop());

  it('shows an organization with every admin attribute at its default', async () => {
    const name = await newOrg();
    const org = await show(name);
    expect(org).toMatchObject({
      id: name,
      type: 'organizations',
      links: { self: `/api/v2/admin/organizations/${name}` },
    });
    expect(org.attributes).toMatchObject({ name, 'notification-email': `ops@${name}.example`, ...DEFAULTS });
    expect(org.attributes['external-id']).toMatch(/^org-/);
    expect(org.attributes['created-at']).toMatch(/Z$/);
    expect(org.relationships['module-consumers'].links.related).toBe(
      `/api/v2/admin/organizations/${name}/relationships/module-consumers`,
    );
  });

  it('show with include=owners returns the owners in included', async () => {
    const name = await newOrg();
    const res = await t.admin.get(`/api/v2/admin/organizations/${name}?include=owners`);
    expect(res.status).toBe(200);
    const [owner] = res.body.data.relationships.owners.data;
    expect(res.body.included).toEqual([
      expect.objectContaining({
        id: owner.id,
        type: 'users',
        attributes: expect.objectContaining({ username: 'admin' }),
      }),
    ]);
    expect(res.body.included[0].attributes.email).toMatch(/@/);
  });

  it('updates every attribute and echoes all of them, both timeout spellings included', async () => {
    const name = await newOrg();
    const res = await adminUpdate(t, name, {
      'access-beta-tools': true,
      'global-module-sharing': true,
      'global-provider-sharing': true,
      'is-disabled': true,
      'apply-timeout': '12h',
      'plan-timeout': '90m',
      'engine-worker-sudo-enabled': true,
      'workspace-limit': 25,
    });
    expect(res.status, res.text).toBe(200);
    const expected = {
      ...DEFAULTS,
      'access-beta-tools': true,
      'global-module-sharing': true,
      'global-provider-sharing': true,
      'is-disabled': true,
      'engine-worker-sudo-enabled': true,
      'workspace-limit': 25,
      'apply-timeout': '12h',
      'plan-timeout': '90m',
      'engine-build-worker-apply-timeout': '12h',
      'engine-build-worker-plan-timeout': '90m',
    };
    expect(res.body.data.attributes).toMatchObject(expected);
    expect((await show(name)).attributes).toMatchObject(expected);
  });

  it('keeps attributes that are not sent; an empty update changes nothing', async () => {
    const name = await newOrg();
    await adminUpdate(t, name, { 'access-beta-tools': true, 'apply-timeout': '3h' });
    const res = await t.admin.patch(`/admin/organizations/${name}`, { data: { type: '' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.attributes).toMatchObject({
      'access-beta-tools': true,
      'apply-timeout': '3h',
      'workspace-limit': null,
    });
  });

  it('accepts data.type "" (as the Go client sends it) and "organizations", and rejects other types', async () => {
    const name = await newOrg();
    const empty = await t.admin.patch(`/admin/organizations/${name}`, {
      data: { type: '', attributes: { 'access-beta-tools': true } },
    });
    expect(empty.status, empty.text).toBe(200);
    const proper = await t.admin.patch(`/api/v2/admin/organizations/${name}`, {
      data: { type: 'organizations', attributes: { 'access-beta-tools': false } },
    });
    expect(proper.status, proper.text).toBe(200);
    expect(proper.body.data.attributes['access-beta-tools']).toBe(false);
    const wrong = await t.admin.patch(`/admin/organizations/${name}`, {
      data: { type: 'workspaces', attributes: { 'access-beta-tools': true } },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors[0].source).toEqual({ pointer: '/data/type' });
    expect((await show(name)).attributes['access-beta-tools']).toBe(false);
  });

  it('answers 404 for an unknown organization before looking at the body', async () => {
    const missing = uniqueName('missing');
    expect((await t.admin.patch(`/admin/organizations/${missing}`, {})).status).toBe(404);
    expect((await t.admin.patch(`/admin/organizations/${missing}`, { data: { type: 'nope' } })).status).toBe(
      404,
    );
    expect((await t.admin.get(`/api/v2/admin/organizations/${missing}`)).status).toBe(404);
    expect((await t.admin.delete(`/admin/organizations/${missing}`)).status).toBe(404);
  });

  it('rejects attributes of the wrong JSON type with 422 pointers and changes nothing', async () => {
    const name = await newOrg();
    const res = await adminUpdate(t, name, {
      'is-disabled': 'true',
      'access-beta-tools': 1,
      'workspace-limit': '5',
      'apply-timeout': 24,
    });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer).sort()).toEqual([
      '/data/attributes/access-beta-tools',
      '/data/attributes/apply-timeout',
      '/data/attributes/is-disabled',
      '/data/attributes/workspace-limit',
    ]);
    expect(res.body.errors[0].title).toBe('invalid attribute');
    expect((await show(name)).attributes).toMatchObject(DEFAULTS);
  });

  it('accepts durations as decimal numbers with a unit suffix', async () => {
    const name = await newOrg();
    for (const value of ['24h', '90m', '1.5h', '3600s', '1h30m', '500ms', '.5h']) {
      const res = await adminUpdate(t, name, { 'apply-timeout': value });
      expect(res.status, `${value}: ${res.text}`).toBe(200);
      expect(res.body.data.attributes['apply-timeout']).toBe(value);
    }
  });

  it('rejects malformed, unitless, zero and negative durations with 422', async () => {
    const name = await newOrg();
    await adminUpdate(t, name, { 'plan-timeout': '2h' });
    for (const value of ['24', '24 h', '1.5x', 'h', '1d', '-1h', '0s', '0', ' 2h', 'PT2H']) {
      const res = await adminUpdate(t, name, { 'plan-timeout': value });
      expect(res.status, value).toBe(422);
      expect(res.body.errors[0].source.pointer).toBe('/data/attributes/plan-timeout');
    }
    expect((await show(name)).attributes['plan-timeout']).toBe('2h');
  });

  it('null (or "") resets a timeout to the instance default', async () => {
    const name = await newOrg();
    await adminUpdate(t, name, { 'apply-timeout': '5h', 'plan-timeout': '1h' });
    const res = await adminUpdate(t, name, { 'apply-timeout': null, 'engine-build-worker-plan-timeout': '' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.attributes).toMatchObject({
      'apply-timeout': null,
      'engine-build-worker-apply-timeout': null,
      'plan-timeout': null,
      'engine-build-worker-plan-timeout': null,
    });
  });

  it('keeps the deprecated engine-build-worker timeouts in step with apply-timeout and plan-timeout', async () => {
    const name = await newOrg();
    const viaAlias = await adminUpdate(t, name, {
      'engine-build-worker-apply-timeout': '8h',
      'engine-build-worker-plan-timeout': '45m',
    });
    expect(viaAlias.status, viaAlias.text).toBe(200);
    expect(viaAlias.body.data.attributes).toMatchObject({
      'apply-timeout': '8h',
      'plan-timeout': '45m',
      'engine-build-worker-apply-timeout': '8h',
      'engine-build-worker-plan-timeout': '45m',
    });
    const viaCanonical = await adminUpdate(t, name, { 'apply-timeout': '10h' });
    expect(viaCanonical.body.data.attributes).toMatchObject({
      'apply-timeout': '10h',
      'engine-build-worker-apply-timeout': '10h',
    });
    const same = await adminUpdate(t, name, {
      'plan-timeout': '30m',
      'engine-build-worker-plan-timeout': '30m',
    });
    expect(same.status).toBe(200);
  });

  it('rejects both spellings of a timeout with different values', async () => {
    const name = await newOrg();
    const res = await adminUpdate(t, name, {
      'apply-timeout': '1h',
      'engine-build-worker-apply-timeout': '2h',
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].source.pointer).toBe('/data/attributes/engine-build-worker-apply-timeout');
    expect((await show(name)).attributes['apply-timeout']).toBeNull();
  });

  it('workspace-limit: null by default, 0 kept as 0, null clears it; negative is a 422', async () => {
    const name = await newOrg();
    expect((await show(name)).attributes['workspace-limit']).toBeNull();
    const zero = await adminUpdate(t, name, { 'workspace-limit': 0 });
    expect(zero.body.data.attributes['workspace-limit']).toBe(0);
    expect(
      (await adminUpdate(t, name, { 'access-beta-tools': true })).body.data.attributes['workspace-limit'],
    ).toBe(0);
    expect(
      (await adminUpdate(t, name, { 'workspace-limit': 7 })).body.data.attributes['workspace-limit'],
    ).toBe(7);
    expect(
      (await adminUpdate(t, name, { 'workspace-limit': null })).body.data.attributes['workspace-limit'],
    ).toBeNull();
    const negative = await adminUpdate(t, name, { 'workspace-limit': -1 });
    expect(negative.status).toBe(422);
    expect(negative.body.errors[0].source.pointer).toBe('/data/attributes/workspace-limit');
    expect((await adminUpdate(t, name, { 'workspace-limit': 1.5 })).status).toBe(422);
  });

  it('accepts the worker sudo flag under the upstream name too; sso-enabled is read-only', async () => {
    const name = await newOrg();
    const upstream = await adminUpdate(t, name, {
      'terraform-worker-sudo-enabled': true,
      'sso-enabled': true,
    });
    expect(upstream.status, upstream.text).toBe(200);
    expect(upstream.body.data.attributes['engine-worker-sudo-enabled']).toBe(true);
    expect(upstream.body.data.attributes['sso-enabled']).toBe(false);
    const conflicting = await adminUpdate(t, name, {
      'engine-worker-sudo-enabled': false,
      'terraform-worker-sudo-enabled': true,
    });
    expect(conflicting.status).toBe(422);
  });

  it('rejects a body that is not a JSON:API document', async () => {
    const name = await newOrg();
    expect((await t.admin.patch(`/admin/organizations/${name}`, { data: [] })).status).toBe(422);
    expect((await t.admin.patch(`/admin/organizations/${name}`, '{not json')).status).toBe(400);
  });
});
