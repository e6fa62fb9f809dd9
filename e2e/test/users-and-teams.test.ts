import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMember,
  createOrganization,
  createUser,
  createWorkspace,
  uniqueName,
} from './support/fixtures.js';
import { NOT_FOUND } from './support/security-http.js';
import { startTestSystem, type TestSystem } from './support/system.js';

let t: TestSystem;
beforeAll(async () => {
  t = await startTestSystem();
});
afterAll(async () => {
  await t?.stop();
});

describe('users (site admin)', () => {
  it('lists users a page at a time, by username or email search and admin filter; 404 for others', async () => {
    const prefix = uniqueName('find');
    const alice = await createUser(t, `${prefix}-alice`);
    await createUser(t, `${prefix}-bob`);

    const res = await t.admin.get(`/admin/users?q=${prefix}&page%5Bsize%5D=1`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({ type: 'users', attributes: { username: alice.username } });
    expect(res.body.meta.pagination).toMatchObject({ 'total-count': 2, 'total-pages': 2, 'next-page': 2 });
    expect(res.body.links.next).toContain('page%5Bnumber%5D=2');

    const byEmail = await t.admin.get(
      `/admin/users?q=${encodeURIComponent(`${alice.username}@example.com`)}`,
    );
    expect(byEmail.body.data.map((u: { id: string }) => u.id)).toEqual([alice.id]);
    const admins = await t.admin.get('/admin/users?filter%5Badmin%5D=true');
    expect(admins.body.data.map((u: { attributes: { username: string } }) => u.attributes.username)).toEqual([
      'admin',
    ]);
    expect((await t.admin.get('/admin/users?filter%5Badmin%5D=yes')).status).toBe(422);

    const denied = await alice.api.get('/admin/users');
    expect([denied.status, denied.body]).toEqual([404, NOT_FOUND]);
  });

  it('deletes a user: their token stops working at once and their memberships are gone', async () => {
    const org = await createOrganization(t, 'deluser');
    const member = await createMember(t, org, ['read-runs']);
    expect((await member.api.get(`/organizations/${org.name}`)).status).toBe(200);

    expect((await org.owner.api.delete(`/admin/users/${member.id}`)).status).toBe(404);
    const del = await t.admin.delete(`/admin/users/${member.id}`);
    expect(del.status, del.text).toBe(204);
    expect((await member.api.get('/account/details')).status).toBe(401);
    expect((await t.admin.delete(`/admin/users/${member.id}`)).status).toBe(404);

    const teams = await org.owner.api.get(`/organizations/${org.name}/teams`);
    for (const team of teams.body.data) {
      expect(team.relationships.users.data).not.toContainEqual({ type: 'users', id: member.id });
    }
  });

  it('refuses to delete the only owner of an organization (422), and keeps their token', async () => {
    const org = await createOrganization(t, 'soleowner');
    const res = await t.admin.delete(`/admin/users/${org.owner.id}`);
    expect(res.status, res.text).toBe(422);
    expect(res.body.errors[0].detail).toContain(org.name);
    expect((await org.owner.api.get('/account/details')).status).toBe(200);
  });
});

describe('teams', () => {
  it('lists all teams to owners (with members on include=users), visible ones to members, 404 to outsiders', async () => {
    const org = await createOrganization(t, 'teamlist');
    const member = await createMember(t, org, ['read-runs'], 'readers');
    const secret = await org.owner.api.post(`/organizations/${org.name}/teams`, {
      data: { type: 'teams', attributes: { name: 'secret-ops' } },
    });
    expect(secret.status, secret.text).toBe(201);
    expect(secret.body.data.attributes.visibility).toBe('secret');

    const all = await org.owner.api.get(`/organizations/${org.name}/teams?include=users`);
    expect(all.status, all.text).toBe(200);
    expect(all.body.data.map((team: { attributes: { name: string } }) => team.attributes.name)).toEqual([
      'owners',
      'readers',
      'secret-ops',
    ]);
    expect(all.body.included.map((u: { id: string }) => u.id).sort()).toEqual(
      [org.owner.id, member.id].sort(),
    );
    expect(all.body.meta.pagination['total-count']).toBe(3);

    const seen = await member.api.get(`/organizations/${org.name}/teams`);
    expect(seen.body.data.map((team: { attributes: { name: string } }) => team.attributes.name)).toEqual([
      'owners',
      'readers',
    ]);
    expect((await member.api.get(`/teams/${secret.body.data.id}`)).status).toBe(404);

    const filtered = await org.owner.api.get(
      `/organizations/${org.name}/teams?filter%5Bnames%5D=secret-ops,owners`,
    );
    expect(filtered.body.data.map((team: { attributes: { name: string } }) => team.attributes.name)).toEqual([
      'owners',
      'secret-ops',
    ]);

    const outsider = await createUser(t, 'outsider');
    const denied = await outsider.api.get(`/organizations/${org.name}/teams`);
    expect([denied.status, denied.body]).toEqual([404, NOT_FOUND]);
    expect((await org.owner.api.get(`/organizations/${org.name}/teams?include=members`)).status).toBe(400);
  });

  it('removing a member or deleting their team takes the permission away at once', async () => {
    const org = await createOrganization(t, 'teamdel');
    const ws = await createWorkspace(org.owner.api, org.name);
    const member = await createMember(t, org, ['read-runs'], 'runners');
    expect((await member.api.get(`/workspaces/${ws.id}/runs`)).status).toBe(200);

    const teams = await org.owner.api.get(`/organizations/${org.name}/teams?filter%5Bnames%5D=runners`);
    const teamId = teams.body.data[0].id as string;
    const removed = await org.owner.api.delete(`/teams/${teamId}/relationships/users`, {
      data: [{ type: 'users', id: member.id }],
    });
    expect(removed.status, removed.text).toBe(204);
    expect((await member.api.get(`/workspaces/${ws.id}/runs`)).status).toBe(404);

    await org.owner.api.post(`/teams/${teamId}/relationships/users`, {
      data: [{ type: 'users', id: member.id }],
    });
    expect((await member.api.get(`/workspaces/${ws.id}/runs`)).status).toBe(200);
    expect((await member.api.delete(`/teams/${teamId}`)).status).toBe(404);
    const del = await org.owner.api.delete(`/teams/${teamId}`);
    expect(del.status, del.text).toBe(204);
    expect((await member.api.get(`/workspaces/${ws.id}/runs`)).status).toBe(404);
    expect((await org.owner.api.get(`/teams/${teamId}`)).status).toBe(404);
  });

  it('keeps the owners team and its last member (422)', async () => {
    const org = await createOrganization(t, 'keepowners');
    const owners = await org.owner.api.get(`/organizations/${org.name}/teams?filter%5Bnames%5D=owners`);
    const ownersId = owners.body.data[0].id as string;
    expect((await org.owner.api.delete(`/teams/${ownersId}`)).status).toBe(422);
    const last = await org.owner.api.delete(`/teams/${ownersId}/relationships/users`, {
      data: [{ type: 'users', id: org.owner.id }],
    });
    expect(last.status, last.text).toBe(422);
    expect((await org.owner.api.get(`/organizations/${org.name}`)).status).toBe(200);
  });
});
