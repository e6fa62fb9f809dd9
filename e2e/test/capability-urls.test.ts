import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policyArchive, putArchive, tarOf } from './support/archives.js';
import {
  createMember,
  createOrganization,
  createPolicySet,
  createUser,
  createWorkspace,
  type TestUser,
  uniqueName,
} from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * Upload URLs are capabilities: shown only to callers who may upload themselves, and honoured
 * only while the one who created them still may (checked when the upload arrives).
 */
let t: TestSystem;
let org: Awaited<ReturnType<typeof createOrganization>>;
beforeAll(async () => {
  t = await startTestSystem();
  org = await createOrganization(t, 'cap');
});
afterAll(() => t?.stop());

const configArchive = () =>
  tarOf([{ name: 'main.tf', content: 'resource "null_resource" "x" {}\n' }]).then(gzipSync);

/** A member of `org` through a team of their own granting `permissions`; the team id is returned. */
async function memberWithTeam(permissions: string[]): Promise<{ user: TestUser; teamId: string }> {
  const user = await createUser(t, 'cap-member');
  const team = await org.owner.api.post(`/organizations/${org.name}/teams`, {
    data: {
      type: 'teams',
      attributes: {
        name: uniqueName('team'),
        'organization-access': Object.fromEntries(permissions.map((p) => [p, true])),
      },
    },
  });
  expect(team.status, team.text).toBe(201);
  const add = await org.owner.api.post(`/teams/${team.body.data.id}/relationships/users`, {
    data: [{ type: 'users', id: user.id }],
  });
  expect(add.status, add.text).toBe(204);
  return { user, teamId: team.body.data.id };
}

async function removeFromTeam(teamId: string, userId: string) {
  const res = await org.owner.api.delete(`/teams/${teamId}/relationships/users`, {
    data: [{ type: 'users', id: userId }],
  });
  expect(res.status, res.text).toBe(204);
}

async function createCv(as: TestUser, workspaceId: string) {
  const res = await as.api.post(`/workspaces/${workspaceId}/configuration-versions`, {
    data: { type: 'configuration-versions', attributes: {} },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: string; attributes: Record<string, unknown> & { 'upload-url': string } };
}

const runsOf = async (workspaceId: string) =>
  (await org.owner.api.get(`/workspaces/${workspaceId}/runs`)).body.data as unknown[];

describe('configuration version upload URLs', () => {
  it('are not shown to a member with only read-runs, who therefore cannot upload in the creator’s name', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const reader = await createMember(t, org, ['read-runs']);
    const cv = await createCv(org.owner, ws.id);
    expect(cv.attributes['upload-url']).toMatch(/\/api\/v2\/uploads\//);

    const shown = await reader.api.get(`/configuration-versions/${cv.id}`);
    expect(shown.status, shown.text).toBe(200);
    expect(shown.body.data.attributes.status).toBe('pending');
    expect(shown.body.data.attributes['upload-url']).toBeNull();
    const listed = await reader.api.get(`/workspaces/${ws.id}/configuration-versions`);
    expect(listed.status, listed.text).toBe(200);
    expect(
      listed.body.data.map((v: { attributes: Record<string, unknown> }) => v.attributes['upload-url']),
    ).toEqual([null]);
    expect(shown.text).not.toContain('/uploads/');
    expect(listed.text).not.toContain('/uploads/');

    // Those who may upload still see it, on show and list alike.
    const writer = await createMember(t, org, ['manage-workspaces', 'read-runs']);
    // (Minted afresh on every read: a URL of the same upload, not the same string.)
    const forWriter = await writer.api.get(`/configuration-versions/${cv.id}`);
    expect(forWriter.body.data.attributes['upload-url']).toMatch(/\/api\/v2\/uploads\//);
    const ownerList = await org.owner.api.get(`/workspaces/${ws.id}/configuration-versions`);
    expect(ownerList.body.data[0].attributes['upload-url']).toMatch(/\/api\/v2\/uploads\//);
  });

  it('stop working once the creator loses manage-workspaces, and work again if it comes back before expiry', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const { user, teamId } = await memberWithTeam(['manage-workspaces', 'read-runs']);
    const cv = await createCv(user, ws.id);
    await removeFromTeam(teamId, user.id);

    const archive = await configArchive();
    const refused = await putArchive(cv.attributes['upload-url'], archive);
    expect(refused.status, refused.text).toBe(404);
    const after = (await org.owner.api.get(`/configuration-versions/${cv.id}`)).body.data;
    expect(after.attributes.status).toBe('pending');
    expect(await runsOf(ws.id)).toEqual([]);

    // The right is checked when the upload arrives, not when the URL was made.
    const back = await org.owner.api.post(`/teams/${teamId}/relationships/users`, {
      data: [{ type: 'users', id: user.id }],
    });
    expect(back.status, back.text).toBe(204);
    const put = await putArchive(cv.attributes['upload-url'], archive);
    expect(put.status, put.text).toBe(200);
    expect((await org.owner.api.get(`/configuration-versions/${cv.id}`)).body.data.attributes.status).toBe(
      'uploaded',
    );
  });

  it('stop working once the creator is deleted', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const { user } = await memberWithTeam(['manage-workspaces']);
    const cv = await createCv(user, ws.id);
    const deleted = await t.admin.delete(`/admin/users/${user.id}`);
    expect(deleted.status, deleted.text).toBe(204);

    const refused = await putArchive(cv.attributes['upload-url'], await configArchive());
    expect(refused.status, refused.text).toBe(404);
    expect((await org.owner.api.get(`/configuration-versions/${cv.id}`)).body.data.attributes.status).toBe(
      'pending',
    );
    expect(await runsOf(ws.id)).toEqual([]);
  });
});

describe('policy set version upload URLs', () => {
  it('stop working once the creator loses manage-policies', async () => {
    const set = await createPolicySet(org.owner.api, org.name);
    const { user, teamId } = await memberWithTeam(['manage-policies']);
    const created = await user.api.request('POST', `/policy-sets/${set.id}/versions`);
    expect(created.status, created.text).toBe(201);
    const url = created.body.data.links.upload as string;
    await removeFromTeam(teamId, user.id);

    const refused = await putArchive(url, await policyArchive());
    expect(refused.status, refused.text).toBe(404);
    const shown = await org.owner.api.get(`/policy-set-versions/${created.body.data.id}`);
    expect(shown.body.data.attributes.status).toBe('pending');
  });

  it('are accepted while the creator keeps manage-policies', async () => {
    const set = await createPolicySet(org.owner.api, org.name);
    const { user } = await memberWithTeam(['manage-policies']);
    const created = await user.api.request('POST', `/policy-sets/${set.id}/versions`);
    expect(created.status, created.text).toBe(201);
    expect((await putArchive(created.body.data.links.upload, await policyArchive())).status).toBe(200);
    const shown = await user.api.get(`/policy-set-versions/${created.body.data.id}`);
    expect(shown.body.data.attributes.status).toBe('ready');
  });
});
