import * as grpc from '@grpc/grpc-js';
import { contracts } from '@policyhub/contracts';
import { InProcessTransport } from '@policyhub/events';
import { createClient, type Principal, principalFromProto, readServiceError } from '@policyhub/grpc-runtime';
import type { RunningService } from '@policyhub/service-kit';
import { createLogger } from '@policyhub/telemetry';
import { createTestDatabase, type TestDatabase, testAuth, testSigningKeys } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminOrgs } from '../src/index.js';

const ADMIN_TOKEN = 'test-site-admin-token-users-and-teams';
const v1 = contracts().policyhub.adminorgs.v1;
const auth = testAuth();
let db: TestDatabase;
let service: RunningService;
let identity: ReturnType<typeof createClient<InstanceType<typeof v1.Identity>>>;
let orgs: ReturnType<typeof createClient<InstanceType<typeof v1.Organizations>>>;
let teams: ReturnType<typeof createClient<InstanceType<typeof v1.Teams>>>;
let admin: Principal;

const principalOf = async (token: string): Promise<Principal> =>
  principalFromProto((await identity.Authenticate({ token })).principal!);

const failure = async (promise: Promise<unknown>) => {
  try {
    await promise;
    return { status: grpc.status.OK, code: '' };
  } catch (err) {
    const e = readServiceError(err);
    return { status: e.status, code: e.code };
  }
};

/** A new user with a token; returns the user id, the token and a principal refreshed on demand. */
async function newUser(username: string) {
  const user = (
    await identity.CreateUser({ username, email: `${username}@example.com` }, { principal: admin })
  ).user!;
  const { token } = await identity.CreateAuthenticationToken({ userId: user.id }, { principal: admin });
  return { id: user.id, token, principal: () => principalOf(token) };
}

beforeAll(async () => {
  db = await createTestDatabase('ph_admin_orgs_users_teams');
  service = await startAdminOrgs({
    databaseUrl: db.url,
    grpcAddress: '127.0.0.1:0',
    transport: new InProcessTransport(),
    logger: createLogger('admin-orgs', 'silent'),
    siteAdminToken: ADMIN_TOKEN,
    signingKeys: testSigningKeys,
  });
  identity = createClient(v1.Identity, service.address, auth.credential);
  orgs = createClient(v1.Organizations, service.address, auth.credential);
  teams = createClient(v1.Teams, service.address, auth.credential);
  admin = await principalOf(ADMIN_TOKEN);
});

afterAll(async () => {
  for (const c of [identity, orgs, teams]) c?.close();
  await service?.close();
  await db?.drop();
});

describe('users (site admin)', () => {
  it('lists users a page at a time, searches username and email, filters admins; 404 to others', async () => {
    const u1 = await newUser('list-alice');
    await newUser('list-bob');
    const page = await identity.ListUsers({ page: { number: 1, size: 2 } }, { principal: admin });
    expect(page.users).toHaveLength(2);
    expect(page.users[0]!.username).toBe('admin');
    expect(page.page!.totalCount).toBeGreaterThanOrEqual(3);

    const byName = await identity.ListUsers({ query: 'LIST-AL' }, { principal: admin });
    expect(byName.users.map((u) => u.username)).toEqual(['list-alice']);
    const byEmail = await identity.ListUsers({ query: 'bob@example' }, { principal: admin });
    expect(byEmail.users.map((u) => u.username)).toEqual(['list-bob']);
    // LIKE wildcards in the query are literal characters.
    expect((await identity.ListUsers({ query: '%' }, { principal: admin })).users).toEqual([]);
    const admins = await identity.ListUsers({ isSiteAdmin: true }, { principal: admin });
    expect(admins.users.map((u) => u.username)).toEqual(['admin']);

    expect((await failure(identity.ListUsers({}, { principal: await u1.principal() }))).status).toBe(
      grpc.status.NOT_FOUND,
    );
  });

  it('deletes a user with their tokens and memberships; the token stops authenticating', async () => {
    const owner = await newUser('del-owner');
    const member = await newUser('del-member');
    await orgs.CreateOrganization(
      { name: 'del-org', email: 'o@example.com' },
      { principal: await owner.principal() },
    );
    const team = (
      await teams.CreateTeam(
        { organization: 'del-org', name: 'devs', permissions: ['ORGANIZATION_PERMISSION_READ_RUNS'] },
        { principal: await owner.principal() },
      )
    ).team!;
    await teams.AddTeamMembers(
      { teamId: team.id, userIds: [member.id] },
      { principal: await owner.principal() },
    );

    // Only site admins; others see 404 whatever the id.
    expect(
      (await failure(identity.DeleteUser({ id: member.id }, { principal: await owner.principal() }))).status,
    ).toBe(grpc.status.NOT_FOUND);
    await identity.DeleteUser({ id: member.id }, { principal: admin });

    expect((await failure(identity.Authenticate({ token: member.token }))).status).toBe(
      grpc.status.UNAUTHENTICATED,
    );
    const after = (await teams.GetTeam({ id: team.id }, { principal: admin })).team!;
    expect(after.userIds).toEqual([]);
    const { rows } = await service.db.query('SELECT 1 FROM authentication_tokens WHERE user_id = $1', [
      member.id,
    ]);
    expect(rows).toEqual([]);
    expect((await failure(identity.DeleteUser({ id: member.id }, { principal: admin }))).status).toBe(
      grpc.status.NOT_FOUND,
    );
  });

  it('refuses to delete the last owner of an organization and the caller themself', async () => {
    const owner = await newUser('sole-owner');
    await orgs.CreateOrganization(
      { name: 'sole-org', email: 'o@example.com' },
      { principal: await owner.principal() },
    );
    const refused = await failure(identity.DeleteUser({ id: owner.id }, { principal: admin }));
    expect(refused).toEqual({ status: grpc.status.INVALID_ARGUMENT, code: 'ADMIN_ORGS_LAST_OWNER' });
    expect((await principalOf(owner.token)).userId).toBe(owner.id);

    expect(await failure(identity.DeleteUser({ id: admin.userId }, { principal: admin }))).toEqual({
      status: grpc.status.INVALID_ARGUMENT,
      code: 'ADMIN_ORGS_DELETE_SELF',
    });
  });
});

describe('teams', () => {
  it('lists every team to owners, visible ones to members, none to outsiders', async () => {
    const owner = await newUser('teams-owner');
    const member = await newUser('teams-member');
    const outsider = await newUser('teams-outsider');
    await orgs.CreateOrganization(
      { name: 'teams-org', email: 'o@example.com' },
      { principal: await owner.principal() },
    );
    const asOwner = { principal: await owner.principal() };
    const own = (
      await teams.CreateTeam(
        { organization: 'teams-org', name: 'readers', permissions: ['ORGANIZATION_PERMISSION_READ_RUNS'] },
        asOwner,
      )
    ).team!;
    const secret = (
      await teams.CreateTeam({ organization: 'teams-org', name: 'secret-ops', permissions: [] }, asOwner)
    ).team!;
    const open = (
      await teams.CreateTeam(
        {
          organization: 'teams-org',
          name: 'everyone',
          permissions: [],
          visibility: 'TEAM_VISIBILITY_ORGANIZATION',
        },
        asOwner,
      )
    ).team!;
    await teams.AddTeamMembers({ teamId: own.id, userIds: [member.id] }, asOwner);

    const all = await teams.ListTeams({ organization: 'teams-org' }, asOwner);
    expect(all.teams.map((t) => t.name)).toEqual(['owners', 'readers', 'secret-ops', 'everyone']);
    expect(all.page!.totalCount).toBe(4);

    const asMember = { principal: await member.principal() };
    const seen = await teams.ListTeams({ organization: 'teams-org' }, asMember);
    expect(seen.teams.map((t) => t.name)).toEqual(['owners', 'readers', 'everyone']);
    expect((await failure(teams.GetTeam({ id: secret.id }, asMember))).status).toBe(grpc.status.NOT_FOUND);
    expect((await teams.GetTeam({ id: open.id }, asMember)).team!.visibility).toBe(
      'TEAM_VISIBILITY_ORGANIZATION',
    );

    const asOutsider = { principal: await outsider.principal() };
    expect((await failure(teams.ListTeams({ organization: 'teams-org' }, asOutsider))).status).toBe(
      grpc.status.NOT_FOUND,
    );

    const searched = await teams.ListTeams({ organization: 'teams-org', query: 'READ' }, asOwner);
    expect(searched.teams.map((t) => t.name)).toEqual(['readers']);
    const named = await teams.ListTeams(
      { organization: 'teams-org', names: ['owners', 'everyone'] },
      asOwner,
    );
    expect(named.teams.map((t) => t.name)).toEqual(['owners', 'everyone']);
    const paged = await teams.ListTeams({ organization: 'teams-org', page: { number: 2, size: 3 } }, asOwner);
    expect(paged.teams.map((t) => t.name)).toEqual(['everyone']);

    expect(
      await failure(
        teams.CreateTeam(
          {
            organization: 'teams-org',
            name: 'bad',
            permissions: [],
            visibility: 'TEAM_VISIBILITY_UNSPECIFIED',
          },
          asOwner,
        ),
      ),
    ).toEqual({ status: grpc.status.INVALID_ARGUMENT, code: 'ADMIN_ORGS_INVALID_TEAM_VISIBILITY' });
  });

  it('lets owners delete teams (not owners) and remove members (not the last owner)', async () => {
    const owner = await newUser('td-owner');
    const member = await newUser('td-member');
    await orgs.CreateOrganization(
      { name: 'td-org', email: 'o@example.com' },
      { principal: await owner.principal() },
    );
    const asOwner = { principal: await owner.principal() };
    const team = (
      await teams.CreateTeam(
        {
          organization: 'td-org',
          name: 'ops',
          permissions: ['ORGANIZATION_PERMISSION_MANAGE_WORKSPACES'],
          visibility: 'TEAM_VISIBILITY_ORGANIZATION',
        },
        asOwner,
      )
    ).team!;
    await teams.AddTeamMembers({ teamId: team.id, userIds: [member.id] }, asOwner);
    const asMember = { principal: await member.principal() };

    // A member (not an owner) can see the team but neither change nor delete it.
    expect((await failure(teams.DeleteTeam({ id: team.id }, asMember))).status).toBe(grpc.status.NOT_FOUND);
    expect(
      (await failure(teams.RemoveTeamMembers({ teamId: team.id, userIds: [member.id] }, asMember))).status,
    ).toBe(grpc.status.NOT_FOUND);

    const [ownersTeam] = (await teams.ListTeams({ organization: 'td-org', names: ['owners'] }, asOwner))
      .teams;
    expect(await failure(teams.DeleteTeam({ id: ownersTeam!.id }, asOwner))).toEqual({
      status: grpc.status.INVALID_ARGUMENT,
      code: 'ADMIN_ORGS_OWNERS_TEAM',
    });
    expect(
      await failure(teams.RemoveTeamMembers({ teamId: ownersTeam!.id, userIds: [owner.id] }, asOwner)),
    ).toEqual({
      status: grpc.status.INVALID_ARGUMENT,
      code: 'ADMIN_ORGS_LAST_OWNER',
    });
    expect((await teams.GetTeam({ id: ownersTeam!.id }, asOwner)).team!.userIds).toEqual([owner.id]);

    const removed = (await teams.RemoveTeamMembers({ teamId: team.id, userIds: [member.id] }, asOwner)).team!;
    expect(removed.userIds).toEqual([]);
    expect((await principalOf(member.token)).memberships.has('td-org')).toBe(false);

    await teams.DeleteTeam({ id: team.id }, asOwner);
    expect((await failure(teams.GetTeam({ id: team.id }, asOwner))).status).toBe(grpc.status.NOT_FOUND);
  });
});
