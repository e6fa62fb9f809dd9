import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, createOrganization, createProject, createWorkspace } from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/*
 * The `permissions` objects clients read to decide what to offer (go-tfe decodes them on every
 * workspace and team): computed from the caller's teams, so one resource answers differently to
 * callers in different teams.
 */

let t: TestSystem;
beforeAll(async () => {
  t = await startTestSystem();
});
afterAll(async () => {
  await t?.stop();
});

const NEVER = {
  'can-update-variable': false,
  'can-lock': false,
  'can-unlock': false,
  'can-force-unlock': false,
  'can-queue-apply': false,
  'can-queue-destroy': false,
};

describe('permissions objects', () => {
  it('on workspaces (show, by name, list): manage-workspaces may update, destroy and queue runs', async () => {
    const org = await createOrganization(t);
    const ws = await createWorkspace(org.owner.api, org.name);
    const manager = await createMember(t, org, ['manage-workspaces']);
    const reader = await createMember(t, org, ['read-runs']);
    const managed = {
      'can-update': true,
      'can-destroy': true,
      'can-queue-run': true,
      'can-read-settings': true,
      ...NEVER,
    };
    const readOnly = { ...managed, 'can-update': false, 'can-destroy': false, 'can-queue-run': false };
    for (const [who, expected] of [
      [org.owner, managed],
      [manager, managed],
      [reader, readOnly],
    ] as const) {
      const show = await who.api.get(`/workspaces/${ws.id}`);
      expect(show.body.data.attributes.permissions, who.username).toEqual(expected);
      const byName = await who.api.get(`/organizations/${org.name}/workspaces/${ws.attributes.name}`);
      expect(byName.body.data.attributes.permissions).toEqual(expected);
      const list = await who.api.get(`/organizations/${org.name}/workspaces`);
      expect(list.body.data[0].attributes.permissions).toEqual(expected);
    }
  });

  it('on teams: owners may change membership and delete; other members may not', async () => {
    const org = await createOrganization(t);
    const member = await createMember(t, org, ['manage-workspaces', 'manage-policies']);
    const teams = await member.api.get(`/organizations/${org.name}/teams`);
    expect(teams.status).toBe(200);
    const own = teams.body.data.find(
      (team: { attributes: { name: string } }) => team.attributes.name !== 'owners',
    );
    const fixed = {
      'can-update-organization-access': false,
      'can-update-api-token': false,
      'can-update-visibility': false,
    };
    expect(own.attributes.permissions).toEqual({
      'can-update-membership': false,
      'can-destroy': false,
      ...fixed,
    });
    const asOwner = await org.owner.api.get(`/teams/${own.id}`);
    expect(asOwner.body.data.attributes.permissions).toEqual({
      'can-update-membership': true,
      'can-destroy': true,
      ...fixed,
    });
  });

  it('on projects: manage-projects may update and destroy, manage-workspaces may add and move workspaces', async () => {
    const org = await createOrganization(t);
    const project = await createProject(org.owner.api, org.name);
    const projects = await createMember(t, org, ['manage-projects']);
    const workspaces = await createMember(t, org, ['manage-workspaces']);
    const get = async (who: typeof projects) =>
      (await who.api.get(`/projects/${project.id}`)).body.data.attributes.permissions;
    expect(await get(projects)).toEqual({
      'can-read': true,
      'can-update': true,
      'can-destroy': true,
      'can-create-workspace': false,
      'can-move-workspace': false,
    });
    expect(await get(workspaces)).toEqual({
      'can-read': true,
      'can-update': false,
      'can-destroy': false,
      'can-create-workspace': true,
      'can-move-workspace': true,
    });
  });
});
