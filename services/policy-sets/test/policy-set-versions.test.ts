import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import {
  contracts,
  encodeMessage,
  fromTimestamp,
  type storageV1,
  timestampToIso,
  toTimestamp,
} from '@policyhub/contracts';
import { InProcessTransport, TOPICS } from '@policyhub/events';
import { createClient, readServiceError, UploadTokens } from '@policyhub/grpc-runtime';
import { createLogger } from '@policyhub/telemetry';
import { createTestDatabase, type TestDatabase, testAuth, testSigningKeys } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPolicySets } from '../src/index.js';
import { UPLOAD_COMPLETED_CONSUMER } from '../src/consumers/upload-completed.js';
import { type FakeTenancy, startFakeAdminOrgs } from './support/fake-admin-orgs.js';
import { startFakeStorage } from './support/fake-storage.js';
import { managerOf } from './support/policy-sets-harness.js';

const ORG = 'acme';
const FREE = 'free-org';
const as = { principal: managerOf(ORG) };

let db: TestDatabase;
let service: Awaited<ReturnType<typeof startPolicySets>>;
let transport: InProcessTransport;
let adminOrgs: Awaited<ReturnType<typeof startFakeAdminOrgs>>;
const tenancy: FakeTenancy = {
  organizations: { [ORG]: {}, [FREE]: { isFreeTier: true } },
  workspaces: {},
  projects: {},
};
let storage: Awaited<ReturnType<typeof startFakeStorage>>;
const v1 = contracts().policyhub.policysets.v1;
let versions: ReturnType<typeof createClient<InstanceType<typeof v1.PolicySetVersions>>>;
let sets: ReturnType<typeof createClient<InstanceType<typeof v1.PolicySets>>>;
let policies: ReturnType<typeof createClient<InstanceType<typeof v1.Policies>>>;

beforeAll(async () => {
  db = await createTestDatabase('ph_policy_set_versions');
  adminOrgs = await startFakeAdminOrgs(tenancy);
  storage = await startFakeStorage();
  transport = new InProcessTransport();
  service = await startPolicySets({
    databaseUrl: db.url,
    grpcAddress: '127.0.0.1:0',
    transport,
    logger: createLogger('policy-sets', 'silent'),
    adminOrgsAddress: adminOrgs.address,
    storageAddress: storage.address,
    signingKeys: testSigningKeys,
    // The tests run the backfill's rounds themselves; a failed version is tried again next round.
    declarationBackfill: { intervalMs: 3_600_000, retryAfterMs: 0 },
  });
  versions = createClient(v1.PolicySetVersions, service.address, testAuth().credential);
  sets = createClient(v1.PolicySets, service.address, testAuth().credential);
  policies = createClient(v1.Policies, service.address, testAuth().credential);
});

afterAll(async () => {
  for (const c of [versions, sets, policies]) c?.close();
  await service?.close();
  await storage?.close();
  await adminOrgs?.close();
  await db?.drop();
});

const remote = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (err) {
    return readServiceError(err);
  }
  throw new Error('expected the call to fail');
};

let counter = 0;
const newSet = async (extra: Record<string, unknown> = {}, organization = ORG) =>
  (
    await sets.CreatePolicySet(
      { organization, name: `set-${++counter}`, ...extra },
      { principal: managerOf(organization) },
    )
  ).policySet!;

/** Publishes storage.upload-completed as storage's relay would; resolves once it was applied. */
async function uploadCompleted(payload: Record<string, unknown>, eventId = randomUUID()) {
  await transport.publish([
    {
      topic: TOPICS.uploadCompleted.name,
      key: String(payload.ownerId ?? 'k'),
      eventId,
      payload: encodeMessage(TOPICS.uploadCompleted.type, {
        eventId,
        occurredAt: toTimestamp(new Date()),
        ...payload,
      }),
      headers: {},
    },
  ]);
  return eventId;
}

const succeeded = (v: { id: string; policySetId: string }) => ({
  organization: ORG,
  ownerKind: 'UPLOAD_OWNER_KIND_POLICY_SET_VERSION',
  ownerId: v.id,
  ownerParentId: v.policySetId,
  ok: true,
  objectKey: `${ORG}/policy-sets/${v.policySetId}/versions/${v.id}.tar.gz`,
  sizeBytes: 123,
  sha256: 'ab'.repeat(32),
});

describe('creating versions', () => {
  it('creates a pending version whose upload session expires one hour after created-at', async () => {
    const set = await newSet();
    const v = (await versions.CreatePolicySetVersion({ policySetId: set.id }, as)).version!;
    expect(v).toMatchObject({
      id: expect.stringMatching(/^polsetver-/),
      policySetId: set.id,
      organization: ORG,
      source: 'POLICY_SET_VERSION_SOURCE_TFE_API',
      status: 'POLICY_SET_VERSION_STATUS_PENDING',
      statusTimestamps: { pendingAt: v.createdAt, readyAt: null, erroredAt: null },
      uploadToken: expect.stringMatching(/^[A-Za-z0-9_-]{60,}$/),
    });
    expect(v.error).toBeUndefined();
    const session = storage.state.sessions.at(-1)!;
    expect(session).toMatchObject({
      organization: ORG,
      ownerKind: 'UPLOAD_OWNER_KIND_POLICY_SET_VERSION',
      ownerId: v.id,
      ownerParentId: set.id,
    });
    expect(fromTimestamp(session.expiresAt)!.getTime() - Date.parse(timestampToIso(v.createdAt)!)).toBe(
      3600_000,
    );
    // The URL names storage's session; the version keeps the session id, never a token.
    const uploadTokens = new UploadTokens(testSigningKeys);
    expect(uploadTokens.open(v.uploadToken!)).toEqual({
      sessionId: session.sessionId,
      expiresAt: fromTimestamp(session.expiresAt)!.getTime(),
    });
    const again = (await versions.GetPolicySetVersion({ id: v.id }, as)).version!;
    expect(again.uploadToken).not.toBe(v.uploadToken);
    expect(uploadTokens.open(again.uploadToken!)?.sessionId).toBe(session.sessionId);
    const row = JSON.stringify(
      (await service.db.query('SELECT * FROM policy_set_versions WHERE id = $1', [v.id])).rows,
    );
    expect(row).toContain(session.sessionId);
    for (const token of [v.uploadToken!, again.uploadToken!, session.token]) expect(row).not.toContain(token);
    // A kind_a set's archive must be a Sentinel policy set (storage checks it at upload).
    expect(session).toMatchObject({ layout: 'ARCHIVE_LAYOUT_SENTINEL', layoutRoot: '' });

    const after = (await sets.GetPolicySet({ id: set.id }, as)).policySet!;
    expect(after).toMatchObject({ versioned: true, newestVersionId: v.id });
    expect(after.currentVersionId).toBeUndefined();
  });

  it('asks storage for the OPA layout for a kind_b set', async () => {
    const set = await newSet({ kind: 'POLICY_KIND_B' });
    (await versions.CreatePolicySetVersion({ policySetId: set.id }, as)).version!;
    expect(storage.state.sessions.at(-1)).toMatchObject({ layout: 'ARCHIVE_LAYOUT_OPA', layoutRoot: '' });
  });

  it('refuses sets with a VCS repository or individual policies, with the upstream message', async () => {
    const policy = (await policies.CreatePolicy({ organization: ORG, name: `pol-${++counter}` }, as)).policy!;
    const withPolicies = await newSet({ policyIds: { ids: [policy.id] } });
    const vcs = await newSet({ vcsRepo: { identifier: 'acme/policies', oauthTokenId: 'ot-1' } });
    for (const set of [withPolicies, vcs]) {
      const err = await remote(versions.CreatePolicySetVersion({ policySetId: set.id }, as));
      expect(err).toMatchObject({
        status: grpc.status.INVALID_ARGUMENT,
        code: 'POLICY_SETS_VERSIONS_NOT_SUPPORTED',
      });
      expect(err.items[0]?.detail).toBe('The policy set does not support uploading versions');
    }
  });

  it('refuses API versions in a free-tier organization', async () => {
    const set = await newSet({}, FREE);
    const err = await remote(
      versions.CreatePolicySetVersion({ policySetId: set.id }, { principal: managerOf(FREE) }),
    );
    expect(err).toMatchObject({
      status: grpc.status.RESOURCE_EXHAUSTED,
      code: 'POLICY_SETS_FREE_TIER_LIMIT',
    });
  });

  it('hides sets and versions from callers without manage-policies', async () => {
    const set = await newSet();
    const v = (await versions.CreatePolicySetVersion({ policySetId: set.id }, as)).version!;
    const stranger = { principal: managerOf('elsewhere') };
    expect((await remote(versions.CreatePolicySetVersion({ policySetId: set.id }, stranger))).status).toBe(
      grpc.status.NOT_FOUND,
    );
    expect((await remote(versions.GetPolicySetVersion({ id: v.id }, stranger))).status).toBe(
      grpc.status.NOT_FOUND,
    );
    expect((await remote(versions.ListPolicySetVersions({ policySetId: set.id }, stranger))).status).toBe(
      grpc.status.NOT_FOUND,
    );
    expect((await versions.BatchGetPolicySetVersions({ ids: [v.id] }, stranger)).versions).toEqual([]);
    expect(
      (await versions.BatchGetPolicySetVersions({ ids: [v.id, 'polsetver-missing'] }, as)).versions.map(
        (x) => x.id,
      ),
    ).toEqual([v.id]);
  });

  it('answers UNAVAILABLE when storage is down, and creates nothing', async () => {
    const set = await newSet();
    storage.state.down = true;
    try {
      expect((await remote(versions.CreatePolicySetVersion({ policySetId: set.id }, as))).code).toBe(
        'POLICY_SETS_STORAGE_UNAVAILABLE',
      );
    } finally {
      storage.state.down = false;
    }
    expect((await versions.ListPolicySetVersions({ policySetId: set.id }, as)).page?.totalCount).toBe(0);
    expect((await sets.GetPolicySet({ id: set.id }, as)).policySet!.versioned).toBe(false);
  });

  it('keeps newest-version on the latest created version when creates race', async () => {
    const set = await newSet();
    const created = await Promise.all(
      Array.from({ length: 6 }, () =>
        versions
          .CreatePolicySetVersion({ policySetId: set.id }, as)
          .then((r) => ({ ...r.version!, createdAt: timestampToIso(r.version!.createdAt)! })),
      ),
    );
    const latest = [...created]
      .sort((a, b) =>
        a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1,
      )
      .at(-1)!;
    expect((await sets.GetPolicySet({ id: set.id }, as)).policySet!.newestVersionId).toBe(latest.id);
    const listed = await versions.ListPolicySetVersions(
      { policySetId: set.id, page: { number: 1, size: 100 } },
      as,
    );
    expect(listed.versions[0]?.id).toBe(latest.id);
    expect(listed.page).toMatchObject({ totalCount: 6, totalPages: 1 });
  });

  it('stops handing out the upload token once it has expired', async () => {
    const set = await newSet();
    const v = (await versions.CreatePolicySetVersion({ policySetId: set.id }, as)).version!;
    await service.db.query(
      "UPDATE policy_set_versions SET upload_expires_at = now() - interval '1 second' WHERE id = $1",
      [v.id],
    );
    const expired = (await versions.GetPolicySetVersion({ id: v.id }, as)).version!;
    expect(expired.status).toBe('POLICY_SET_VERSION_STATUS_PENDING');
    expect(expired.uploadToken).toBeUndefined();
  });
});

describe('applying upload outcomes (storage.upload-completed)', () => {
  it('makes the version ready and current, exactly once per event', async () => {
    const set = await newSet();
    const v = (await versions.CreatePolicySetVersion({ policySetId: set.id }, as)).version!;
    const eventId = await uploadCompleted(succeeded(v));
    const ready = (await versions.GetPolicySetVersion({ id: v.id }, as)).version!;
    expect(ready).toMatchObject({
      status: 'POLICY_SET_VERSION_STATUS_READY',
      statusTimestamps: { readyAt: { seconds: expect.any(Number), nanos: expect.any(Number) } },
    });
    expect(ready.uploadToken).toBeUndefined();
    expect((await sets.GetPolicySet({ id: set.id }, as)).policySet!.currentVersionId).toBe(v.id);
    const { rows } = await service.db.query(
      'SELECT object_key, size_bytes, sha256 FROM policy_set_versions WHERE id = $1',
      [v.id],
    );
    expect(rows[0]).toEqual({ object_key: succeeded(v).objectKey, size_bytes: 123, sha256: 'ab'.repeat(32) });

    await uploadCompleted(succeeded(v), eventId);
    expect((await versions.GetPolicySetVersion({ id: v.id }, as)).version!).toEqual(ready);
    const processed = await service.db.query(
      'SELECT count(*)::int AS n FROM processed_events WHERE consumer = $1 AND event_id = $2',
      [UPLOAD_COMPLETED_CONSUMER, eventId],
    );
    expect(processed.rows[0]?.n).toBe(1);
  });

  it("stores what the archive declares with the version and hands it to runs in the set's snapshot", async () => {
    const set = await newSet({ global: true });
    const legacy = (await versions.CreatePolicySetVersion({ policySetId: set.id }, as)).version!;
    // An event of a storage release before declarations: the version is ready all the same.
    await uploadCompleted(succeeded(legacy));
    const stored = async (id: string) =>
      (await service.db.query('SELECT declaration FROM policy_set_versions WHERE id = $1', [id])).rows[0]
        ?.declaration;
    expect(await stored(legacy.id)).toBeNull();
    const applicable = contracts().policyhub.policysets.v1.ApplicablePolicySets;
    const client = createClient(applicable, service.address, testAuth().credential);
    const snapshot = async () =>
      (
        await client.GetApplicablePolicySets({
          organization: ORG,
          organizationId: `org-id-${ORG}`,
          workspaceId: 'ws-any',
        })
      ).policySets.find((s) => s.id === set.id);
    expect(await snapshot()).toMatchObject({ currentVersionId: legacy.id, currentVersionDeclaration: null });

    const v = (await versions.CreatePolicySetVersion({ policySetId: set.id }, as)).version!;
    // As storage's event carries it (enum levels, unset fields for none)…
    const declaration = {
      root: '',
      configPath: 'sentinel.hcl',
      policies: [
        {
          name: 'restrict-s3',
          enforcementLevel: 'DECLARED_ENFORCEMENT_LEVEL_HARD_MANDATORY',
          source: './restrict-s3.sentinel',
        },
        { name: 'tags', enforcementLevel: 'DECLARED_ENFORCEMENT_LEVEL_ADVISORY', source: './tags.sentinel' },
      ],
      sentinelBlocksJson: '{"param":{"max":[{"value":3}]}}',
    };
    await uploadCompleted({ ...succeeded(v), declaration });
    // …kept with the version in the words policy-sets stores…
    expect(await stored(v.id)).toEqual({
      root: '',
      configPath: 'sentinel.hcl',
      policies: [
        {
          name: 'restrict-s3',
          enforcementLevel: 'hard-mandatory',
          source: './restrict-s3.sentinel',
          query: '',
          description: '',
        },
        { name: 'tags', enforcementLevel: 'advisory', source: './tags.sentinel', query: '', description: '' },
      ],
      sentinelBlocksJson: '{"param":{"max":[{"value":3}]}}',
    });
    // …and handed to runs as it came.
    expect(await snapshot()).toMatchObject({
      currentVersionId: v.id,
      currentVersionObjectKey: succeeded(v).objectKey,
      policies: [],
      currentVersionDeclaration: declaration,
    });
    client.close();
  });

  it('records the declaration of versions that became ready without one, once storage can read their archive', async () => {
    const backfill = service.declarationBackfill!;
    const set = await newSet({ kind: 'POLICY_KIND_B' });
    const old = (await versions.CreatePolicySetVersion({ policySetId: set.id }, as)).version!;
    // An event of a storage release before declarations: ready, with none.
    await uploadCompleted(succeeded(old));
    const stored = async (id: string) =>
      (await service.db.query('SELECT declaration FROM policy_set_versions WHERE id = $1', [id])).rows[0]
        ?.declaration;
    const key = succeeded(old).objectKey;

    // Storage cannot find the archive: the version stays as it is (its checks keep erroring).
    expect(await backfill.runOnce()).toMatchObject({ failed: expect.any(Number) });
    expect(await stored(old.id)).toBeNull();
    // The archive no longer conforms: still nothing recorded.
    storage.state.archives.set(key, {
      ok: false,
      declaration: null,
      errorCode: 'STORAGE_ARCHIVE_CONFIG_MISSING',
      errorMessage: 'the archive has no policies.hcl or policies.json at its root',
    });
    await backfill.runOnce();
    expect(await stored(old.id)).toBeNull();

    // Once storage reads it, its declaration is recorded, read as the set's layout requires.
    const declaration: storageV1.ReadArchiveDeclarationResponse['declaration'] = {
      root: '',
      configPath: 'policies.hcl',
      policies: [
        {
          name: 'no-public-buckets',
          enforcementLevel: 'DECLARED_ENFORCEMENT_LEVEL_MANDATORY',
          query: 'data.terraform.deny',
        },
      ],
    };
    storage.state.archives.set(key, { ok: true, declaration });
    storage.state.declarationReads.length = 0;
    expect((await backfill.runOnce()).recorded).toBeGreaterThanOrEqual(1);
    expect(storage.state.declarationReads).toContainEqual({
      key,
      layout: 'ARCHIVE_LAYOUT_OPA',
      layoutRoot: '',
    });
    const recorded = {
      root: '',
      configPath: 'policies.hcl',
      policies: [
        {
          name: 'no-public-buckets',
          enforcementLevel: 'mandatory',
          source: '',
          query: 'data.terraform.deny',
          description: '',
        },
      ],
      sentinelBlocksJson: '',
    };
    expect(await stored(old.id)).toEqual(recorded);

    // Idempotent: the next round neither reads it again nor changes what was recorded.
    storage.state.declarationReads.length = 0;
    storage.state.archives.set(key, { ok: true, declaration: { ...declaration!, configPath: 'other.hcl' } });
    await backfill.runOnce();
    expect(storage.state.declarationReads.map((r) => r.key)).not.toContain(key);
    expect(await stored(old.id)).toEqual(recorded);
  });

  it('marks the version errored with the reason and leaves the current version alone', async () => {
    const set = await newSet();
    const good = (await versions.CreatePolicySetVersion({ policySetId: set.id }, as)).version!;
    await uploadCompleted(succeeded(good));
    const bad = (await versions.CreatePolicySetVersion({ policySetId: set.id }, as)).version!;
    await uploadCompleted({
      ...succeeded(bad),
      ok: false,
      objectKey: undefined,
      errorCode: 'STORAGE_ARCHIVE_PATH_TRAVERSAL',
      errorMessage: 'the archive contains a path with "..": "../x"',
    });
    const errored = (await versions.GetPolicySetVersion({ id: bad.id }, as)).version!;
    expect(errored.uploadToken).toBeUndefined();
    expect(errored).toMatchObject({
      status: 'POLICY_SET_VERSION_STATUS_ERRORED',
      error: 'STORAGE_ARCHIVE_PATH_TRAVERSAL',
      errorMessage: 'the archive contains a path with "..": "../x"',
      statusTimestamps: { erroredAt: { seconds: expect.any(Number), nanos: expect.any(Number) } },
    });
    expect((await sets.GetPolicySet({ id: set.id }, as)).policySet!).toMatchObject({
      currentVersionId: good.id,
      newestVersionId: bad.id,
    });
  });

  it('errors a version whose organization was disabled or deleted before the outcome was applied', async () => {
    for (const change of ['disabled', 'deleted', 're-registered'] as const) {
      const set = await newSet();
      const good = (await versions.CreatePolicySetVersion({ policySetId: set.id }, as)).version!;
      await uploadCompleted(succeeded(good));
      const late = (await versions.CreatePolicySetVersion({ policySetId: set.id }, as)).version!;
      // Storage checked the organization before storing; it changed before policy-sets applied.
      const saved = tenancy.organizations[ORG]!;
      if (change === 'disabled') tenancy.organizations[ORG] = { ...saved, isDisabled: true };
      // Deleted, and a new organization took the name (another id, ADR 0019).
      else if (change === 're-registered') tenancy.organizations[ORG] = { ...saved, id: 'org-id-newcomer' };
      else delete tenancy.organizations[ORG];
      try {
        await uploadCompleted(succeeded(late));
      } finally {
        tenancy.organizations[ORG] = saved;
      }
      expect((await versions.GetPolicySetVersion({ id: late.id }, as)).version!).toMatchObject({
        status: 'POLICY_SET_VERSION_STATUS_ERRORED',
        error: 'POLICY_SETS_ORGANIZATION_UNAVAILABLE',
        errorMessage: expect.stringContaining(
          `was ${change === 'disabled' ? 'disabled' : 'deleted'} before the upload was applied`,
        ),
      });
      expect((await sets.GetPolicySet({ id: set.id }, as)).policySet!.currentVersionId).toBe(good.id);
    }
  });

  it('ignores outcomes for other owners, deleted versions, and versions already settled', async () => {
    const set = await newSet();
    const v = (await versions.CreatePolicySetVersion({ policySetId: set.id }, as)).version!;
    await uploadCompleted({ ...succeeded(v), ownerKind: 'UPLOAD_OWNER_KIND_CONFIGURATION_VERSION' });
    await uploadCompleted({ ...succeeded(v), ownerId: 'polsetver-gone' });
    expect((await versions.GetPolicySetVersion({ id: v.id }, as)).version!.status).toBe(
      'POLICY_SET_VERSION_STATUS_PENDING',
    );

    await uploadCompleted({ ...succeeded(v), ok: false, errorCode: 'E', errorMessage: 'failed' });
    await uploadCompleted(succeeded(v));
    expect((await versions.GetPolicySetVersion({ id: v.id }, as)).version!.status).toBe(
      'POLICY_SET_VERSION_STATUS_ERRORED',
    );
    expect((await sets.GetPolicySet({ id: set.id }, as)).policySet!.currentVersionId).toBeUndefined();
  });

  it('dead-letters an event it cannot decode, with the error, for operators', async () => {
    const eventId = randomUUID();
    await transport.publish([
      {
        topic: TOPICS.uploadCompleted.name,
        key: 'k',
        eventId,
        payload: Buffer.from([0xff, 0x01]),
        headers: {},
      },
    ]);
    const { rows } = await service.db.query(
      'SELECT consumer, error, attempts FROM dead_letters WHERE event_id = $1',
      [eventId],
    );
    expect(rows).toEqual([
      { consumer: UPLOAD_COMPLETED_CONSUMER, error: expect.stringMatching(/\S/), attempts: 5 },
    ]);
  });
});
