import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policyArchive, putArchive } from './support/archives.js';
import {
  createMember,
  createOrganization,
  createPolicySet,
  createUser,
  createWorkspace,
  type TestUser,
  uniqueName,
} from './support/fixtures.js';
import { type SecurityTestSystem, startSecurityTestSystem } from './support/security-system.js';

/**
 * Team tokens and organization tokens over HTTP, as upstream's team and organization token APIs
 * (go-tfe TeamTokens, OrganizationTokens): one per team and per organization, the value shown
 * once, a new one revokes the old; a team token acts with its team's permissions, an
 * organization token with what upstream allows it (no runs, no configuration versions, no
 * overrides, no organization settings). Everyone else gets 404. No value reaches a log line.
 */
let t: SecurityTestSystem;
let org: Awaited<ReturnType<typeof createOrganization>>;
/** Every token value this file saw; none may appear in a log line or a later read. */
const secrets = new Set<string>();

beforeAll(async () => {
  t = await startSecurityTestSystem({ captureLogs: true });
  org = await createOrganization(t, 'tok');
});
afterAll(() => t?.stop());

const NOT_FOUND = { errors: [{ status: '404', code: 'NOT_FOUND', title: 'not found' }] };
const UNAUTHORIZED = { errors: [{ status: '401', code: 'UNAUTHORIZED', title: 'unauthorized' }] };
const account = (token: string) => t.client(token).get('/account/details');
const organizationOf = (token: string) => t.client(token).get(`/organizations/${org.name}/policy-sets`);

async function createTeam(permissions: string[], members: TestUser[] = []) {
  const res = await org.owner.api.post(`/organizations/${org.name}/teams`, {
    data: {
      type: 'teams',
      attributes: {
        name: uniqueName('team'),
        'organization-access': Object.fromEntries(permissions.map((p) => [p, true])),
      },
    },
  });
  expect(res.status, res.text).toBe(201);
  if (members.length > 0) {
    const add = await org.owner.api.post(`/teams/${res.body.data.id}/relationships/users`, {
      data: members.map((m) => ({ type: 'users', id: m.id })),
    });
    expect(add.status, add.text).toBe(204);
  }
  return res.body.data.id as string;
}

async function teamToken(as: TestUser['api'], teamId: string, attributes?: Record<string, unknown>) {
  const res = await as.post(
    `/teams/${teamId}/authentication-token`,
    attributes ? { data: { type: 'authentication-token', attributes } } : undefined,
  );
  expect(res.status, res.text).toBe(201);
  const token = res.body.data.attributes.token as string;
  secrets.add(token);
  return { token, body: res.body, text: res.text };
}

async function organizationToken(attributes?: Record<string, unknown>) {
  const res = await org.owner.api.post(
    `/organizations/${org.name}/authentication-token`,
    attributes ? { data: { type: 'authentication-token', attributes } } : undefined,
  );
  expect(res.status, res.text).toBe(201);
  const token = res.body.data.attributes.token as string;
  secrets.add(token);
  return { token, body: res.body };
}

describe('team tokens', () => {
  it('are created with the value shown once, read without it, replaced and revoked', async () => {
    const teamId = await createTeam(['manage-policies']);
    const first = await teamToken(org.owner.api, teamId);
    expect(first.body.data).toMatchObject({
      type: 'authentication-tokens',
      attributes: { 'expired-at': null, 'last-used-at': null, token: expect.stringMatching(/^ph\./) },
      relationships: { 'created-by': { data: { id: org.owner.id, type: 'users' } } },
      links: { self: `/api/v2/teams/${teamId}/authentication-token` },
    });
    expect((await organizationOf(first.token)).status).toBe(200);

    const shown = await org.owner.api.get(`/teams/${teamId}/authentication-token`);
    expect(shown.status, shown.text).toBe(200);
    expect(shown.body.data.id).toBe(first.body.data.id);
    expect(shown.body.data.attributes.token).toBeNull();
    expect(shown.text).not.toContain(first.token);

    // A new one replaces the old, which stops authenticating at once.
    const second = await teamToken(org.owner.api, teamId);
    expect(second.token).not.toBe(first.token);
    expect((await organizationOf(first.token)).body).toEqual(UNAUTHORIZED);
    expect((await organizationOf(second.token)).status).toBe(200);

    const deleted = await org.owner.api.delete(`/teams/${teamId}/authentication-token`);
    expect(deleted.status, deleted.text).toBe(204);
    expect((await organizationOf(second.token)).status).toBe(401);
    expect((await org.owner.api.get(`/teams/${teamId}/authentication-token`)).body).toEqual(NOT_FOUND);
    expect((await org.owner.api.delete(`/teams/${teamId}/authentication-token`)).body).toEqual(NOT_FOUND);
  });

  it('act with exactly their team’s permissions, and die with the team', async () => {
    const teamId = await createTeam(['manage-policies']);
    const { token } = await teamToken(org.owner.api, teamId);
    const api = t.client(token);
    const set = await api.post(`/organizations/${org.name}/policy-sets`, {
      data: { type: 'policy-sets', attributes: { name: uniqueName('set') } },
    });
    expect(set.status, set.text).toBe(201);
    // Not granted: workspaces, runs, organization settings, new organizations.
    const ws = await createWorkspace(org.owner.api, org.name);
    for (const res of [
      await api.post(`/organizations/${org.name}/workspaces`, {
        data: { type: 'workspaces', attributes: { name: uniqueName('ws') } },
      }),
      await api.post(`/workspaces/${ws.id}/configuration-versions`, {
        data: { type: 'configuration-versions', attributes: {} },
      }),
      await api.get(`/workspaces/${ws.id}/runs`),
      await api.patch(`/organizations/${org.name}`, {
        data: { type: 'organizations', attributes: { email: 'x@example.com' } },
      }),
      await api.post('/organizations', {
        data: { type: 'organizations', attributes: { name: uniqueName('org'), email: 'a@example.com' } },
      }),
      await api.post(`/organizations/${org.name}/authentication-token`),
    ]) {
      expect(res.status, res.text).toBe(404);
    }

    expect((await org.owner.api.delete(`/teams/${teamId}`)).status).toBe(204);
    expect((await account(token)).status).toBe(401);
  });

  it('may be managed by the team’s members and the organization’s owners only (404 otherwise)', async () => {
    const member = await createUser(t, 'tok-member');
    const bystander = await createMember(t, org, ['manage-policies', 'read-runs']);
    const outsider = await createUser(t, 'tok-outsider');
    const teamId = await createTeam(['read-runs'], [member]);

    const own = await teamToken(member.api, teamId);
    expect(own.body.data.relationships['created-by'].data.id).toBe(member.id);
    expect((await member.api.get(`/teams/${teamId}/authentication-token`)).status).toBe(200);

    for (const who of [bystander, outsider]) {
      for (const res of [
        await who.api.post(`/teams/${teamId}/authentication-token`),
        await who.api.get(`/teams/${teamId}/authentication-token`),
        await who.api.delete(`/teams/${teamId}/authentication-token`),
      ]) {
        expect(res.body, res.text).toEqual(NOT_FOUND);
      }
    }
    // The token the member made still works: nothing above changed it.
    expect((await account(own.token)).status).not.toBe(401);
    expect((await t.client(own.token).get(`/organizations/${org.name}/teams`)).status).toBe(200);
    expect((await member.api.delete(`/teams/${teamId}/authentication-token`)).status).toBe(204);
  });

  it('take an expiry, and refuse one in the past (422, nothing changed)', async () => {
    const teamId = await createTeam(['read-runs']);
    const expiredAt = new Date(Date.now() + 3_600_000).toISOString();
    const made = await teamToken(org.owner.api, teamId, { 'expired-at': expiredAt });
    expect(made.body.data.attributes['expired-at']).toBe(expiredAt);
    const refused = await org.owner.api.post(`/teams/${teamId}/authentication-token`, {
      data: { type: 'authentication-token', attributes: { 'expired-at': '2001-01-01T00:00:00Z' } },
    });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.errors[0].code).toBe('ADMIN_ORGS_INVALID_TOKEN_EXPIRY');
    // The existing token was not replaced.
    expect((await org.owner.api.get(`/teams/${teamId}/authentication-token`)).body.data.id).toBe(
      made.body.data.id,
    );
    expect((await t.client(made.token).get(`/organizations/${org.name}/teams`)).status).toBe(200);
  });
});

describe('organization tokens', () => {
  it('are managed by the organization’s owners only, the value shown once', async () => {
    const first = await organizationToken({ description: 'bootstrap' });
    expect(first.body.data).toMatchObject({
      type: 'authentication-tokens',
      attributes: { description: 'bootstrap', 'expired-at': null },
      links: { self: `/api/v2/organizations/${org.name}/authentication-token` },
    });
    const shown = await org.owner.api.get(`/organizations/${org.name}/authentication-token`);
    expect(shown.status, shown.text).toBe(200);
    expect(shown.body.data.attributes.token).toBeNull();
    expect(shown.text).not.toContain(first.token);

    const member = await createMember(t, org, ['manage-policies', 'manage-workspaces', 'read-runs']);
    const ownersTeam = (await org.owner.api.get(`/organizations/${org.name}/teams`)).body.data.find(
      (team: { attributes: { name: string } }) => team.attributes.name === 'owners',
    );
    const ownersToken = await teamToken(org.owner.api, ownersTeam.id);
    const outsider = await createUser(t, 'tok-outsider');
    for (const api of [member.api, outsider.api, t.client(ownersToken.token), t.client(first.token)]) {
      for (const res of [
        await api.post(`/organizations/${org.name}/authentication-token`),
        await api.get(`/organizations/${org.name}/authentication-token`),
        await api.delete(`/organizations/${org.name}/authentication-token`),
      ]) {
        expect(res.body, res.text).toEqual(NOT_FOUND);
      }
    }
    expect((await organizationOf(first.token)).status).toBe(200);

    const second = await organizationToken();
    expect((await organizationOf(first.token)).status).toBe(401);
    expect((await org.owner.api.delete(`/organizations/${org.name}/authentication-token`)).status).toBe(204);
    expect((await organizationOf(second.token)).status).toBe(401);
    expect((await org.owner.api.get(`/organizations/${org.name}/authentication-token`)).body).toEqual(
      NOT_FOUND,
    );
  });

  it('set up workspaces, teams’ tokens and policies, but never start runs or configuration versions', async () => {
    const { token } = await organizationToken();
    const api = t.client(token);
    const ws = await api.post(`/organizations/${org.name}/workspaces`, {
      data: { type: 'workspaces', attributes: { name: uniqueName('ws') } },
    });
    expect(ws.status, ws.text).toBe(201);
    const set = await createPolicySet(api, org.name);
    const version = await api.request('POST', `/policy-sets/${set.id}/versions`);
    expect(version.status, version.text).toBe(201);
    expect((await putArchive(version.body.data.links.upload, await policyArchive())).status).toBe(200);

    const teamId = await createTeam(['read-runs']);
    const forTeam = await teamToken(api, teamId);
    expect((await t.client(forTeam.token).get(`/organizations/${org.name}/teams`)).status).toBe(200);

    const workspaceId = ws.body.data.id as string;
    for (const res of [
      await api.post(`/workspaces/${workspaceId}/configuration-versions`, {
        data: { type: 'configuration-versions', attributes: {} },
      }),
      await api.post('/runs', {
        data: {
          type: 'runs',
          relationships: { workspace: { data: { type: 'workspaces', id: workspaceId } } },
        },
      }),
      await api.patch(`/organizations/${org.name}`, {
        data: { type: 'organizations', attributes: { email: 'x@example.com' } },
      }),
      await api.post('/organizations', {
        data: { type: 'organizations', attributes: { name: uniqueName('org'), email: 'a@example.com' } },
      }),
    ]) {
      expect(res.status, res.text).toBe(404);
    }
    // A configuration version made by a person shows it no upload URL either.
    const cv = await org.owner.api.post(`/workspaces/${workspaceId}/configuration-versions`, {
      data: { type: 'configuration-versions', attributes: {} },
    });
    expect(cv.status, cv.text).toBe(201);
    const seen = await api.get(`/configuration-versions/${cv.body.data.id}`);
    expect(seen.status, seen.text).toBe(200);
    expect(seen.body.data.attributes['upload-url']).toBeNull();
  });

  it('stop an upload URL they made once they are revoked', async () => {
    const { token } = await organizationToken();
    const set = await createPolicySet(t.client(token), org.name);
    const version = await t.client(token).request('POST', `/policy-sets/${set.id}/versions`);
    expect(version.status, version.text).toBe(201);
    expect((await org.owner.api.delete(`/organizations/${org.name}/authentication-token`)).status).toBe(204);
    expect((await putArchive(version.body.data.links.upload, await policyArchive())).status).toBe(404);
  });
});

describe('token values', () => {
  it('never appear in a log line', () => {
    expect(secrets.size).toBeGreaterThan(5);
    const lines = t.logLines();
    expect(lines.some((l) => l.includes('"service":"gateway"'))).toBe(true);
    const leaks = lines.flatMap((line) =>
      [...secrets].filter((s) => line.includes(s)).map((s) => s.slice(0, 8)),
    );
    expect(leaks).toEqual([]);
  });
});
