import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, createOrganization, createWorkspace, uniqueName } from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

let t: TestSystem;
beforeAll(async () => {
  t = await startTestSystem();
});
afterAll(async () => {
  await t?.stop();
});

describe('workspaces addressed by organization and name', () => {
  it('shows the same document as by id', async () => {
    const org = await createOrganization(t);
    const ws = await createWorkspace(org.owner.api, org.name, { name: uniqueName('ws') });
    // Another workspace whose name contains the first: only the exact name matches.
    await createWorkspace(org.owner.api, org.name, { name: `${ws.attributes.name}-2` });
    const byId = await org.owner.api.get(`/workspaces/${ws.id}`);
    const byName = await org.owner.api.get(`/organizations/${org.name}/workspaces/${ws.attributes.name}`);
    expect(byName.status, byName.text).toBe(200);
    expect(byName.body).toEqual(byId.body);
  });

  it('answers 404 for an unknown name, another organization, or a caller outside the organization', async () => {
    const org = await createOrganization(t);
    const other = await createOrganization(t);
    const ws = await createWorkspace(org.owner.api, org.name);
    const name = ws.attributes.name;
    expect((await org.owner.api.get(`/organizations/${org.name}/workspaces/${name}-nope`)).status).toBe(404);
    expect((await other.owner.api.get(`/organizations/${other.name}/workspaces/${name}`)).status).toBe(404);
    expect((await other.owner.api.get(`/organizations/${org.name}/workspaces/${name}`)).status).toBe(404);
    const patch = await other.owner.api.patch(`/organizations/${org.name}/workspaces/${name}`, {
      data: { type: 'workspaces', attributes: { description: 'x' } },
    });
    expect(patch.status).toBe(404);
    expect((await other.owner.api.delete(`/organizations/${org.name}/workspaces/${name}`)).status).toBe(404);
    expect((await org.owner.api.get(`/workspaces/${ws.id}`)).body.data.attributes.description).toBeNull();
  });

  it('updates by name, including a rename, and the new name addresses it', async () => {
    const org = await createOrganization(t);
    const ws = await createWorkspace(org.owner.api, org.name);
    const renamed = uniqueName('renamed');
    const res = await org.owner.api.patch(`/organizations/${org.name}/workspaces/${ws.attributes.name}`, {
      data: { type: 'workspaces', attributes: { name: renamed, description: 'by name' } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.id).toBe(ws.id);
    expect(res.body.data.attributes).toMatchObject({ name: renamed, description: 'by name' });
    expect((await org.owner.api.get(`/organizations/${org.name}/workspaces/${renamed}`)).body.data.id).toBe(
      ws.id,
    );
    expect(
      (await org.owner.api.get(`/organizations/${org.name}/workspaces/${ws.attributes.name}`)).status,
    ).toBe(404);
  });

  it('refuses an invalid update by name with 422 and changes nothing', async () => {
    const org = await createOrganization(t);
    const ws = await createWorkspace(org.owner.api, org.name);
    const res = await org.owner.api.patch(`/organizations/${org.name}/workspaces/${ws.attributes.name}`, {
      data: { type: 'workspaces', attributes: { name: 'has spaces!' } },
    });
    expect(res.status, res.text).toBe(422);
    expect((await org.owner.api.get(`/workspaces/${ws.id}`)).body.data.attributes.name).toBe(
      ws.attributes.name,
    );
  });

  it('deletes by name; a member without manage-workspaces may read but not delete', async () => {
    const org = await createOrganization(t);
    const ws = await createWorkspace(org.owner.api, org.name);
    const path = `/organizations/${org.name}/workspaces/${ws.attributes.name}`;
    const reader = await createMember(t, org, []);
    expect((await reader.api.get(path)).status).toBe(200);
    // Refused as by id: the caller learns nothing (404).
    expect((await reader.api.delete(path)).status).toBe(404);
    expect((await reader.api.delete(`/workspaces/${ws.id}`)).status).toBe(404);
    expect((await org.owner.api.get(`/workspaces/${ws.id}`)).status).toBe(200);
    expect((await org.owner.api.delete(path)).status).toBe(204);
    expect((await org.owner.api.get(`/workspaces/${ws.id}`)).status).toBe(404);
    expect((await org.owner.api.get(path)).status).toBe(404);
  });
});
