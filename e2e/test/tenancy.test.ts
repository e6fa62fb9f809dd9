import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMember,
  createOrganization,
  createUser,
  createWorkspace,
  uniqueName,
} from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

let t: TestSystem;
beforeAll(async () => {
  t = await startTestSystem();
});
afterAll(async () => {
  await t?.stop();
});

const NOT_FOUND = { errors: [{ status: '404', code: 'NOT_FOUND', title: 'not found' }] };
const UNAUTHORIZED = { errors: [{ status: '401', code: 'UNAUTHORIZED', title: 'unauthorized' }] };

describe('the HTTP edge', () => {
  it('answers ping with or without the /api/v2 prefix (also doubled) and without a token', async () => {
    for (const path of ['/ping', '/api/v2/ping', '/api/v2/api/v2/ping']) {
      const res = await t.anonymous.request('GET', `${t.system.baseUrl}${path}`);
      expect(res.status, path).toBe(204);
      expect(res.headers.get('tfp-api-version')).toBeTruthy();
      expect(res.headers.get('tfp-appname')).toBeNull();
    }
  });

  it('answers unknown routes with a JSON:API 404', async () => {
    const res = await t.admin.get('/no-such-thing');
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
    expect(res.headers.get('content-type')).toContain('application/vnd.api+json');
  });

  it('answers 401 without a token and with an unknown token, identically', async () => {
    const none = await t.anonymous.get('/account/details');
    const bad = await t.client('not-a-real-token').get('/account/details');
    expect([none.status, bad.status]).toEqual([401, 401]);
    expect(none.body).toEqual(UNAUTHORIZED);
    expect(bad.body).toEqual(UNAUTHORIZED);
  });

  it('rejects malformed JSON with 400 and other media types with 415', async () => {
    const malformed = await t.admin.post('/organizations', '{"data":', {
      'content-type': 'application/vnd.api+json',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0].status).toBe('400');
    const text = await t.admin.post('/organizations', 'name=x', { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
  });

  it('accepts application/json as well as the JSON:API media type', async () => {
    const name = uniqueName('json');
    const res = await t.admin.post(
      '/organizations',
      JSON.stringify({ data: { type: 'organizations', attributes: { name, email: 'a@b.example' } } }),
      { 'content-type': 'application/json' },
    );
    expect(res.status).toBe(201);
  });

  it('rejects a body over the size limit with 413', async () => {
    const big = JSON.stringify({
      data: { type: 'organizations', attributes: { name: 'x', email: 'a'.repeat(2 * 1024 * 1024) } },
    });
    const res = await t.admin.post('/organizations', big);
    expect(res.status).toBe(413);
  });
});

describe('users and tokens', () => {
  it('lets the site admin create a user and a token; the token works and shows who it is', async () => {
    const user = await createUser(t);
    const me = await user.api.get('/account/details');
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({
      id: user.id,
      type: 'users',
      attributes: { username: user.username },
    });
    expect(me.body.data.attributes['created-at']).toMatch(/Z$/);
  });

  it('hides user creation from non-admins (404) and validates attributes (422)', async () => {
    const user = await createUser(t);
    const denied = await user.api.post('/admin/users', {
      data: { type: 'users', attributes: { username: 'x1', email: 'x@y.z' } },
    });
    expect(denied.status).toBe(404);
    const badName = await t.admin.post('/admin/users', {
      data: { type: 'users', attributes: { username: 'bad name', email: 'x@y.z' } },
    });
    expect(badName.status).toBe(422);
    expect(badName.body.errors[0].source.pointer).toBe('/data/attributes/username');
    const taken = await t.admin.post('/admin/users', {
      data: { type: 'users', attributes: { username: user.username, email: 'x@y.z' } },
    });
    expect(taken.status).toBe(422);
    expect(taken.body.errors[0].detail).toBe('Username has already been taken');
    const badEmail = await t.admin.post('/admin/users', {
      data: { type: 'users', attributes: { username: uniqueName('u'), email: 'nope' } },
    });
    expect(badEmail.status).toBe(422);
  });

  it('does not let a user mint tokens for someone else', async () => {
    const a = await createUser(t);
    const b = await createUser(t);
    const res = await a.api.post(`/users/${b.id}/authentication-tokens`, {
      data: { type: 'authentication-tokens' },
    });
    expect(res.status).toBe(404);
    const unknown = await t.admin.post('/users/user-doesnotexist/authentication-tokens');
    expect(unknown.status).toBe(404);
  });
});

describe('organizations', () => {
  it('creates an organization whose creator is an owner, then shows, lists, updates and deletes it', async () => {
    const org = await createOrganization(t);
    const shown = await org.owner.api.get(`/organizations/${org.name}`);
    expect(shown.status).toBe(200);
    expect(shown.body.data).toMatchObject({
      id: org.name,
      type: 'organizations',
      attributes: { name: org.name },
    });
    expect(shown.body.data.attributes.permissions['can-manage-policies']).toBe(true);

    const list = await org.owner.api.get('/organizations');
    expect(list.body.data.map((o: { id: string }) => o.id)).toEqual([org.name]);
    expect(list.body.meta.pagination['total-count']).toBe(1);

    const patched = await org.owner.api.patch(`/organizations/${org.name}`, {
      data: { type: 'organizations', attributes: { email: 'new@example.com' } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.attributes.email).toBe('new@example.com');

    expect((await org.owner.api.delete(`/organizations/${org.name}`)).status).toBe(204);
    expect((await org.owner.api.get(`/organizations/${org.name}`)).status).toBe(404);
    expect((await org.owner.api.delete(`/organizations/${org.name}`)).status).toBe(404);
  });

  it('rejects invalid and duplicate names with 422 and changes nothing', async () => {
    const org = await createOrganization(t);
    const dup = await org.owner.api.post('/organizations', {
      data: { type: 'organizations', attributes: { name: org.name, email: 'x@y.z' } },
    });
    expect(dup.status).toBe(422);
    expect(dup.body.errors[0]).toMatchObject({
      detail: 'Name has already been taken',
      source: { pointer: '/data/attributes/name' },
    });
    for (const name of ['has space', 'slash/y', '', 'ünicode']) {
      const res = await org.owner.api.post('/organizations', {
        data: { type: 'organizations', attributes: { name, email: 'x@y.z' } },
      });
      expect(res.status, name).toBe(422);
    }
    const wrongType = await org.owner.api.post('/organizations', {
      data: { type: 'teams', attributes: { name: 'ok', email: 'x@y.z' } },
    });
    expect(wrongType.status).toBe(422);
    expect((await org.owner.api.get('/organizations')).body.meta.pagination['total-count']).toBe(1);
  });

  it('hides an organization from non-members (404) and from members without ownership for changes', async () => {
    const org = await createOrganization(t);
    const stranger = await createUser(t);
    expect((await stranger.api.get(`/organizations/${org.name}`)).body).toEqual(NOT_FOUND);
    const member = await createMember(t, org, ['read-runs']);
    expect((await member.api.get(`/organizations/${org.name}`)).status).toBe(200);
    const patch = await member.api.patch(`/organizations/${org.name}`, {
      data: { type: 'organizations', attributes: { email: 'x@y.z' } },
    });
    expect(patch.status).toBe(404);
    expect((await member.api.delete(`/organizations/${org.name}`)).status).toBe(404);
  });

  it('refuses to rename an organization (422) and keeps it under its name', async () => {
    const org = await createOrganization(t);
    const res = await org.owner.api.patch(`/organizations/${org.name}`, {
      data: { type: 'organizations', attributes: { name: `${org.name}-renamed` } },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].source.pointer).toBe('/data/attributes/name');
    expect((await org.owner.api.get(`/organizations/${org.name}`)).status).toBe(200);
    const same = await org.owner.api.patch(`/organizations/${org.name}`, {
      data: { type: 'organizations', attributes: { name: org.name } },
    });
    expect(same.status).toBe(200);
  });

  it('answers 404 (not 422) for a PATCH with a bad body on an unknown organization', async () => {
    const res = await t.admin.patch('/organizations/does-not-exist', { data: 'nonsense' });
    expect(res.status).toBe(404);
  });
});

describe('teams', () => {
  it('creates a team with organization-access, adds and removes members, and shows it', async () => {
    const org = await createOrganization(t);
    const user = await createUser(t);
    const team = await org.owner.api.post(`/organizations/${org.name}/teams`, {
      data: {
        type: 'teams',
        attributes: { name: 'policy-admins', 'organization-access': { 'manage-policies': true } },
      },
    });
    expect(team.status).toBe(201);
    expect(team.body.data.attributes['organization-access']).toMatchObject({
      'manage-policies': true,
      'read-runs': false,
    });
    const id = team.body.data.id;
    expect((await user.api.get(`/organizations/${org.name}`)).status).toBe(404);
    const add = await org.owner.api.post(`/teams/${id}/relationships/users`, {
      data: [{ type: 'users', id: user.id }],
    });
    expect(add.status).toBe(204);
    expect((await user.api.get(`/organizations/${org.name}`)).status).toBe(200);
    expect((await org.owner.api.get(`/teams/${id}`)).body.data.relationships.users.data).toEqual([
      { type: 'users', id: user.id },
    ]);
    const remove = await org.owner.api.delete(`/teams/${id}/relationships/users`, {
      data: [{ type: 'users', id: user.id }],
    });
    expect(remove.status).toBe(204);
    expect((await user.api.get(`/organizations/${org.name}`)).status).toBe(404);
  });

  it('rejects unknown permissions, unknown users and wrong element types with 422', async () => {
    const org = await createOrganization(t);
    const bad = await org.owner.api.post(`/organizations/${org.name}/teams`, {
      data: { type: 'teams', attributes: { name: 'x', 'organization-access': { 'launch-rockets': true } } },
    });
    expect(bad.status).toBe(422);
    const team = await org.owner.api.post(`/organizations/${org.name}/teams`, {
      data: { type: 'teams', attributes: { name: 't1' } },
    });
    const id = team.body.data.id;
    const unknownUser = await org.owner.api.post(`/teams/${id}/relationships/users`, {
      data: [{ type: 'users', id: 'user-nobody' }],
    });
    expect(unknownUser.status).toBe(422);
    const wrongType = await org.owner.api.post(`/teams/${id}/relationships/users`, {
      data: [{ type: 'teams', id: 'x' }],
    });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.errors[0].source.pointer).toBe('/data/0/type');
  });

  it('rejects an unknown team visibility with 422 naming the attribute', async () => {
    const org = await createOrganization(t);
    const res = await org.owner.api.post(`/organizations/${org.name}/teams`, {
      data: { type: 'teams', attributes: { name: 'x', visibility: 'public' } },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      {
        status: '422',
        code: 'ADMIN_ORGS_INVALID_TEAM_VISIBILITY',
        title: 'invalid attribute',
        detail: 'Visibility must be secret or organization',
        source: { pointer: '/data/attributes/visibility' },
      },
    ]);
    const open = await org.owner.api.post(`/organizations/${org.name}/teams`, {
      data: { type: 'teams', attributes: { name: 'y', visibility: 'organization' } },
    });
    expect(open.body.data.attributes.visibility).toBe('organization');
  });

  it('lets only owners manage teams', async () => {
    const org = await createOrganization(t);
    const member = await createMember(t, org, ['manage-workspaces']);
    const res = await member.api.post(`/organizations/${org.name}/teams`, {
      data: { type: 'teams', attributes: { name: 'x' } },
    });
    expect(res.status).toBe(404);
  });
});

describe('projects', () => {
  it('has a default project and supports create, list, show, update and delete', async () => {
    const org = await createOrganization(t);
    const api = org.owner.api;
    const list = await api.get(`/organizations/${org.name}/projects`);
    expect(list.body.data.map((p: { attributes: { name: string } }) => p.attributes.name)).toEqual([
      'Default Project',
    ]);

    const created = await api.post(`/organizations/${org.name}/projects`, {
      data: { type: 'projects', attributes: { name: 'Platform Team' } },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expect(id).toMatch(/^prj-[0-9A-Za-z]{16}$/);
    expect((await api.get(`/projects/${id}`)).body.data).toEqual(created.body.data);
    const renamed = await api.patch(`/projects/${id}`, {
      data: { type: 'projects', attributes: { name: 'Platform' } },
    });
    expect(renamed.body.data.attributes.name).toBe('Platform');
    expect((await api.delete(`/projects/${id}`)).status).toBe(204);
    expect((await api.get(`/projects/${id}`)).status).toBe(404);

    const defaultId = list.body.data[0].id;
    expect((await api.delete(`/projects/${defaultId}`)).status).toBe(422);
  });

  it('rejects illegal names and requires manage-projects', async () => {
    const org = await createOrganization(t);
    const bad = await org.owner.api.post(`/organizations/${org.name}/projects`, {
      data: { type: 'projects', attributes: { name: 'a/b' } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].title).toBe('invalid attribute');
    const member = await createMember(t, org, ['read-workspaces']);
    const denied = await member.api.post(`/organizations/${org.name}/projects`, {
      data: { type: 'projects', attributes: { name: 'p' } },
    });
    expect(denied.status).toBe(404);
  });
});

describe('workspaces', () => {
  it('supports create (in the default project), list, show, update and delete', async () => {
    const org = await createOrganization(t);
    const api = org.owner.api;
    const ws = await createWorkspace(api, org.name, { name: 'prod' });
    expect(ws.id).toMatch(/^ws-[0-9A-Za-z]{16}$/);
    const shown = await api.get(`/workspaces/${ws.id}`);
    expect(shown.body.data).toEqual(ws);
    expect(shown.body.data.relationships.project.data.type).toBe('projects');

    const page = await api.get(`/organizations/${org.name}/workspaces?page%5Bnumber%5D=1&page%5Bsize%5D=1`);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.links.next).toBeNull();
    const expectedSelf = `${t.system.baseUrl}/api/v2/organizations/${org.name}/workspaces?page%5Bnumber%5D=1&page%5Bsize%5D=1`;
    expect(page.body.links.self).toBe(expectedSelf);
    for (const prefix of ['', '/api/v2/api/v2']) {
      const other = await api.request(
        'GET',
        `${t.system.baseUrl}${prefix}/organizations/${org.name}/workspaces?page[size]=1`,
      );
      expect(other.body.links.self, `prefix "${prefix}"`).toBe(expectedSelf);
    }

    const past = await api.get(`/organizations/${org.name}/workspaces?page[number]=999`);
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual([]);
    expect(past.body.meta.pagination).toMatchObject({ 'current-page': 999, 'total-count': 1 });

    const updated = await api.patch(`/workspaces/${ws.id}`, {
      data: { type: 'workspaces', attributes: { description: 'main' } },
    });
    expect(updated.body.data.attributes.description).toBe('main');
    expect(updated.body.data.attributes['created-at']).toBe(ws.attributes['created-at']);
    expect((await api.delete(`/workspaces/${ws.id}`)).status).toBe(204);
    expect((await api.get(`/workspaces/${ws.id}`)).status).toBe(404);
  });

  it('serves a missing, null or empty description as null, on workspaces and projects alike', async () => {
    const org = await createOrganization(t);
    const api = org.owner.api;
    for (const [type, create] of [
      ['workspaces', `/organizations/${org.name}/workspaces`],
      ['projects', `/organizations/${org.name}/projects`],
    ] as const) {
      const created = await api.post(create, { data: { type, attributes: { name: `described-${type}` } } });
      expect(created.status, created.text).toBe(201);
      expect(created.body.data.attributes.description, type).toBeNull();
      const path = `/${type}/${created.body.data.id}`;
      const described = await api.patch(path, { data: { type, attributes: { description: 'main' } } });
      expect(described.body.data.attributes.description, type).toBe('main');
      const renamed = await api.patch(path, { data: { type, attributes: { name: `renamed-${type}` } } });
      expect(renamed.body.data.attributes.description, type).toBe('main');
      for (const cleared of [null, '']) {
        const res = await api.patch(path, { data: { type, attributes: { description: cleared } } });
        expect(res.body.data.attributes.description, `${type} ${JSON.stringify(cleared)}`).toBeNull();
        await api.patch(path, { data: { type, attributes: { description: 'again' } } });
      }
    }
  });

  it('rejects duplicate names, bad names and a project of another organization', async () => {
    const org = await createOrganization(t);
    const other = await createOrganization(t);
    await createWorkspace(org.owner.api, org.name, { name: 'dup' });
    const dup = await org.owner.api.post(`/organizations/${org.name}/workspaces`, {
      data: { type: 'workspaces', attributes: { name: 'dup' } },
    });
    expect(dup.status).toBe(422);
    const bad = await org.owner.api.post(`/organizations/${org.name}/workspaces`, {
      data: { type: 'workspaces', attributes: { name: 'a b' } },
    });
    expect(bad.status).toBe(422);
    const foreignProject = (await other.owner.api.get(`/organizations/${other.name}/projects`)).body.data[0]
      .id;
    const cross = await org.owner.api.post(`/organizations/${org.name}/workspaces`, {
      data: {
        type: 'workspaces',
        attributes: { name: 'x' },
        relationships: { project: { data: { type: 'projects', id: foreignProject } } },
      },
    });
    expect(cross.status).toBe(422);
    expect(
      (await org.owner.api.get(`/organizations/${org.name}/workspaces`)).body.meta.pagination['total-count'],
    ).toBe(1);
  });

  it('needs manage-workspaces to change workspaces and hides them from other organizations', async () => {
    const org = await createOrganization(t);
    const ws = await createWorkspace(org.owner.api, org.name);
    const reader = await createMember(t, org, ['read-workspaces']);
    expect((await reader.api.get(`/workspaces/${ws.id}`)).status).toBe(200);
    expect((await reader.api.delete(`/workspaces/${ws.id}`)).status).toBe(404);
    const outsider = (await createOrganization(t)).owner;
    expect((await outsider.api.get(`/workspaces/${ws.id}`)).status).toBe(404);
    expect((await outsider.api.get(`/organizations/${org.name}/workspaces`)).status).toBe(404);
  });
});
