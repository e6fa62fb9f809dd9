import { contracts, decodeMessage, timestampToIso } from '@policyhub/contracts';
import { readMigrationsDir } from '@policyhub/db';
import { eventMigrations, InProcessTransport, TOPICS } from '@policyhub/events';
import {
  createClient,
  type Principal,
  principalOf as makePrincipal,
  principalFromProto,
  readServiceError,
} from '@policyhub/grpc-runtime';
import type { RunningService } from '@policyhub/service-kit';
import { createLogger } from '@policyhub/telemetry';
import { createTestDatabase, type TestDatabase, testAuth, testSigningKeys } from '@policyhub/testing';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken, startAdminOrgs } from '../src/index.js';

const ADMIN_TOKEN = 'test-site-admin-token-0123456789';
let db: TestDatabase;
let service: RunningService;
let transport: InProcessTransport;
const published: Array<{ topic: string; payload: Buffer }> = [];
const v1 = contracts().policyhub.adminorgs.v1;
const signingKeys = testSigningKeys;
/** The gateway's credential: signed assertions the service verifies. */
const auth = testAuth();
let identity: ReturnType<typeof createClient<InstanceType<typeof v1.Identity>>>;
let orgs: ReturnType<typeof createClient<InstanceType<typeof v1.Organizations>>>;
let workspaces: ReturnType<typeof createClient<InstanceType<typeof v1.Workspaces>>>;
let teams: ReturnType<typeof createClient<InstanceType<typeof v1.Teams>>>;

const principalOf = async (token: string): Promise<Principal> =>
  principalFromProto((await identity.Authenticate({ token })).principal!);

const statusOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
    return grpc.status.OK;
  } catch (err) {
    return readServiceError(err).status;
  }
};

beforeAll(async () => {
  db = await createTestDatabase('ph_admin_orgs');
  transport = new InProcessTransport();
  await transport.subscribe(
    'test-observer',
    Object.values(TOPICS).map((t) => t.name),
    async (m) => {
      published.push({ topic: m.topic, payload: m.payload });
    },
  );
  service = await startAdminOrgs({
    databaseUrl: db.url,
    grpcAddress: '127.0.0.1:0',
    transport,
    logger: createLogger('admin-orgs', 'silent'),
    siteAdminToken: ADMIN_TOKEN,
    signingKeys,
  });
  identity = createClient(v1.Identity, service.address, auth.credential);
  orgs = createClient(v1.Organizations, service.address, auth.credential);
  workspaces = createClient(v1.Workspaces, service.address, auth.credential);
  teams = createClient(v1.Teams, service.address, auth.credential);
});

afterAll(async () => {
  for (const c of [identity, orgs, workspaces, teams]) c?.close();
  await service?.close();
  await db?.drop();
});

describe('admin-orgs against Postgres', () => {
  it('bootstraps the site admin from the configured token and keeps only its hash', async () => {
    const admin = await principalOf(ADMIN_TOKEN);
    expect(admin).toMatchObject({ username: 'admin', isSiteAdmin: true });
    const { rows } = await service.db.query<{ token_sha256: string }>(
      'SELECT token_sha256 FROM authentication_tokens',
    );
    expect(rows.map((r) => r.token_sha256)).toContain(hashToken(ADMIN_TOKEN));
    const dump = JSON.stringify((await service.db.query('SELECT * FROM authentication_tokens')).rows);
    expect(dump).not.toContain(ADMIN_TOKEN);
  });

  it('rejects unknown tokens as unauthenticated', async () => {
    expect(await statusOf(identity.Authenticate({ token: 'nope' }))).toBe(grpc.status.UNAUTHENTICATED);
  });

  it('lets only site admins create users, and a new token authenticates as its user', async () => {
    const admin = await principalOf(ADMIN_TOKEN);
    const user = (
      await identity.CreateUser({ username: 'carol', email: 'carol@example.com' }, { principal: admin })
    ).user!;
    const carol = await principalOf(
      (await identity.CreateAuthenticationToken({ userId: user.id }, { principal: admin })).token,
    );
    expect(carol).toMatchObject({ userId: user.id, isSiteAdmin: false });
    expect(carol.memberships.size).toBe(0);
    expect(
      await statusOf(identity.CreateUser({ username: 'dave', email: 'd@example.com' }, { principal: carol })),
    ).toBe(grpc.status.NOT_FOUND);
  });

  it('makes the creator an owner with every permission and hides the organization from others', async () => {
    const admin = await principalOf(ADMIN_TOKEN);
    const u = (
      await identity.CreateUser({ username: 'erin', email: 'erin@example.com' }, { principal: admin })
    ).user!;
    const erinToken = (await identity.CreateAuthenticationToken({ userId: u.id }, { principal: admin }))
      .token;
    await orgs.CreateOrganization(
      { name: 'erin-co', email: 'ops@erin.example' },
      { principal: await principalOf(erinToken) },
    );
    const erin = await principalOf(erinToken);
    expect(erin.memberships.get('erin-co')).toEqual(
      expect.arrayContaining(['manage-policies', 'read-runs', 'owners']),
    );

    const other = (
      await identity.CreateUser({ username: 'frank', email: 'frank@example.com' }, { principal: admin })
    ).user!;
    const frank = await principalOf(
      (await identity.CreateAuthenticationToken({ userId: other.id }, { principal: admin })).token,
    );
    expect(await statusOf(orgs.GetOrganization({ name: 'erin-co' }, { principal: frank }))).toBe(
      grpc.status.NOT_FOUND,
    );
  });

  it('grants team permissions to members and drops disabled organizations from memberships', async () => {
    const admin = await principalOf(ADMIN_TOKEN);
    await orgs.CreateOrganization({ name: 'team-co', email: 'ops@team.example' }, { principal: admin });
    const u = (
      await identity.CreateUser({ username: 'gina', email: 'gina@example.com' }, { principal: admin })
    ).user!;
    const token = (await identity.CreateAuthenticationToken({ userId: u.id }, { principal: admin })).token;
    const team = (
      await teams.CreateTeam(
        { organization: 'team-co', name: 'readers', permissions: ['ORGANIZATION_PERMISSION_READ_RUNS'] },
        { principal: await principalOf(ADMIN_TOKEN) },
      )
    ).team!;
    await teams.AddTeamMembers(
      { teamId: team.id, userIds: [u.id] },
      { principal: await principalOf(ADMIN_TOKEN) },
    );
    expect((await principalOf(token)).memberships.get('team-co')).toEqual(['read-runs']);

    await service.db.query(`UPDATE organizations SET is_disabled = true WHERE name = 'team-co'`);
    expect((await principalOf(token)).memberships.get('team-co')).toBeUndefined();
  });

  it('enforces the workspace limit and publishes deletions through the outbox', async () => {
    const admin = await principalOf(ADMIN_TOKEN);
    await orgs.CreateOrganization({ name: 'limit-co', email: 'ops@limit.example' }, { principal: admin });
    const p = await principalOf(ADMIN_TOKEN);
    const ws = (await workspaces.CreateWorkspace({ organization: 'limit-co', name: 'one' }, { principal: p }))
      .workspace!;
    await service.db.query(`UPDATE organizations SET workspace_limit = 1 WHERE name = 'limit-co'`);
    expect(
      await statusOf(workspaces.CreateWorkspace({ organization: 'limit-co', name: 'two' }, { principal: p })),
    ).toBe(grpc.status.RESOURCE_EXHAUSTED);

    await workspaces.DeleteWorkspace({ id: ws.id }, { principal: p });
    await orgs.DeleteOrganization({ name: 'limit-co' }, { principal: p });
    const deletedWs = published.find((e) => e.topic === TOPICS.workspaceDeleted.name);
    expect(
      decodeMessage<{ workspaceId: string }>(TOPICS.workspaceDeleted.type, deletedWs!.payload).workspaceId,
    ).toBe(ws.id);
    const deletedOrg = published.find((e) => e.topic === TOPICS.organizationDeleted.name);
    expect(
      decodeMessage<{ organization: string }>(TOPICS.organizationDeleted.type, deletedOrg!.payload)
        .organization,
    ).toBe('limit-co');
    const { rows } = await service.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM outbox WHERE sent_at IS NULL',
    );
    expect(rows[0]!.n).toBe(0);
  });

  it('gives a re-created organization a new id, carried by principals, workspaces and the deletion event', async () => {
    const admin = await principalOf(ADMIN_TOKEN);
    const u = (
      await identity.CreateUser({ username: 'hugo', email: 'hugo@example.com' }, { principal: admin })
    ).user!;
    const token = (await identity.CreateAuthenticationToken({ userId: u.id }, { principal: admin })).token;
    const idOf = async () =>
      (await identity.Authenticate({ token })).principal!.memberships.find(
        (m) => m.organization === 'again-co',
      )?.organizationId;

    const first = (
      await orgs.CreateOrganization(
        { name: 'again-co', email: 'ops@again.example' },
        { principal: await principalOf(token) },
      )
    ).organization!;
    expect(first.externalId).toMatch(/^org-/);
    expect(await idOf()).toBe(first.externalId);
    const ws = (
      await workspaces.CreateWorkspace(
        { organization: 'again-co', name: 'w' },
        { principal: await principalOf(token) },
      )
    ).workspace!;
    expect((await workspaces.GetWorkspace({ id: ws.id })).workspace!.organizationId).toBe(first.externalId);

    await orgs.DeleteOrganization({ name: 'again-co' }, { principal: await principalOf(token) });
    const deleted = published
      .filter((e) => e.topic === TOPICS.organizationDeleted.name)
      .map((e) =>
        decodeMessage<{ organization: string; organizationId: string }>(
          TOPICS.organizationDeleted.type,
          e.payload,
        ),
      )
      .find((e) => e.organization === 'again-co');
    expect(deleted?.organizationId).toBe(first.externalId);

    const second = (
      await orgs.CreateOrganization(
        { name: 'again-co', email: 'ops@again.example' },
        { principal: await principalOf(token) },
      )
    ).organization!;
    expect(second.externalId).not.toBe(first.externalId);
    expect(await idOf()).toBe(second.externalId);
  });

  it('never exceeds the workspace limit, however many creates run at once', async () => {
    const admin = await principalOf(ADMIN_TOKEN);
    await orgs.CreateOrganization({ name: 'race-co', email: 'ops@race.example' }, { principal: admin });
    const p = await principalOf(ADMIN_TOKEN);
    await service.db.query(`UPDATE organizations SET workspace_limit = 3 WHERE name = 'race-co'`);
    const statuses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        statusOf(workspaces.CreateWorkspace({ organization: 'race-co', name: `ws-${i}` }, { principal: p })),
      ),
    );
    expect(statuses.filter((s) => s === grpc.status.OK)).toHaveLength(3);
    expect(statuses.filter((s) => s !== grpc.status.OK)).toEqual(
      Array(9).fill(grpc.status.RESOURCE_EXHAUSTED),
    );
    const listed = await workspaces.ListWorkspaces({ organization: 'race-co' }, { principal: p });
    expect(listed.page?.totalCount).toBe(3);
  });

  it('notes when a token was last used at most once a minute, in the authentication query', async () => {
    const admin = await principalOf(ADMIN_TOKEN);
    const user = (
      await identity.CreateUser(
        { username: 'tokens-user', email: 'tokens-user@example.com' },
        { principal: admin },
      )
    ).user!;
    const created = await identity.CreateAuthenticationToken({ userId: user.id }, { principal: admin });
    const id = created.authenticationToken!.id;
    const lastUsed = async () =>
      timestampToIso(
        (await identity.GetAuthenticationToken({ id }, { principal: admin })).authenticationToken!.lastUsedAt,
      );
    expect(await lastUsed()).toBeNull();

    await identity.Authenticate({ token: created.token });
    const first = await lastUsed();
    const createdAt = timestampToIso(created.authenticationToken!.createdAt)!;
    expect(Date.parse(first!)).toBeGreaterThan(Date.parse(createdAt) - 1);
    // Within the minute: authenticating again reads the same value back (nothing written).
    await identity.Authenticate({ token: created.token });
    expect(await lastUsed()).toBe(first);

    // Once the noted use is older than a minute, the next authentication notes it again.
    await service.db.query(
      `UPDATE authentication_tokens SET last_used_at = now() - interval '61 seconds' WHERE id = $1`,
      [id],
    );
    const stale = await lastUsed();
    await identity.Authenticate({ token: created.token });
    expect(Date.parse((await lastUsed())!)).toBeGreaterThan(Date.parse(stale!));
  });

  it('keeps exactly the configured bootstrap token at start: a rotated or removed one stops working', async () => {
    const other = await createTestDatabase('ph_admin_orgs_boot');
    const start = (siteAdminToken: string | undefined) =>
      startAdminOrgs({
        databaseUrl: other.url,
        grpcAddress: '127.0.0.1:0',
        transport: new InProcessTransport(),
        logger: createLogger('admin-orgs', 'silent'),
        siteAdminToken,
        signingKeys,
      });
    const authenticatesOn = async (svc: RunningService, token: string) => {
      const client = createClient(v1.Identity, svc.address, auth.credential);
      try {
        return (await statusOf(client.Authenticate({ token }))) === grpc.status.OK;
      } finally {
        client.close();
      }
    };
    const [oldToken, newToken] = ['old-site-admin-token-0123456789', 'new-site-admin-token-0123456789'];
    let svc = await start(oldToken);
    try {
      // A token the admin made through the API is not a bootstrap token: it survives rotation.
      const client = createClient(v1.Identity, svc.address, auth.credential);
      const adminPrincipal = makePrincipal({ userId: '', username: 'admin', isSiteAdmin: true });
      const p = (await client.Authenticate({ token: oldToken })).principal!;
      const own = await client.CreateAuthenticationToken(
        { userId: p.userId, description: 'bootstrap site-admin token' },
        { principal: { ...adminPrincipal, userId: p.userId } },
      );
      client.close();
      await svc.close();

      svc = await start(newToken);
      expect(await authenticatesOn(svc, oldToken)).toBe(false);
      expect(await authenticatesOn(svc, newToken)).toBe(true);
      expect(await authenticatesOn(svc, own.token)).toBe(true);
      await svc.close();

      svc = await start(undefined);
      expect(await authenticatesOn(svc, newToken)).toBe(false);
      expect(await authenticatesOn(svc, own.token)).toBe(true);
    } finally {
      await svc.close();
      await other.drop();
    }
  });

  it('serialises concurrent migration runs with the advisory lock', async () => {
    const other = await createTestDatabase('ph_admin_orgs_mig');
    try {
      const start = () =>
        startAdminOrgs({
          databaseUrl: other.url,
          grpcAddress: '127.0.0.1:0',
          transport: new InProcessTransport(),
          logger: createLogger('admin-orgs', 'silent'),
          migrateOnly: true,
          signingKeys,
        });
      await Promise.all([start(), start(), start()]);
      const { default: pg } = await import('pg');
      const c = new pg.Client({ connectionString: other.url });
      await c.connect();
      const { rows } = await c.query('SELECT name FROM admin_orgs.schema_migrations ORDER BY name');
      await c.end();
      const expected = [
        ...eventMigrations.map((m) => m.name),
        ...readMigrationsDir(new URL('../migrations', import.meta.url).pathname).map((m) => m.name),
      ].sort();
      expect(rows.map((r) => r.name)).toEqual(expected);
    } finally {
      await other.drop();
    }
  });
});
