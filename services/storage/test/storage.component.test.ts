import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as grpc from '@grpc/grpc-js';
import {
  decodeMessage,
  encodeMessage,
  fromTimestamp,
  type storageV1,
  toTimestamp,
} from '@policyhub/contracts';
import { type BusMessage, InProcessTransport, TOPICS } from '@policyhub/events';
import { readServiceError, UploadTokens } from '@policyhub/grpc-runtime';
import { createLogger } from '@policyhub/telemetry';
import {
  createTestDatabase,
  rawFile,
  rawPax,
  rawTar,
  type TestDatabase,
  testSigningKeys,
  waitFor,
} from '@policyhub/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_UPLOAD_LIMITS, startStorage } from '../src/index.js';
import { hashUploadToken } from '../src/domain/upload-sessions.js';
import { policyArchive, tarGzOf } from './support/archives.js';
import { startFakeAdminOrgs } from './support/fake-admin-orgs.js';
import { createStorageClient, type StorageClient } from './support/storage-client.js';

let db: TestDatabase;
let dataDir: string;
let service: Awaited<ReturnType<typeof startStorage>>;
let transport: InProcessTransport;
let storage: StorageClient;
let completed: storageV1.UploadCompleted__Output[] = [];
/** Organizations admin-orgs reports as disabled or missing (every other one is enabled). */
const organizations = new Map<string, 'disabled' | 'missing'>();
/** The id each organization name has now, as the fake admin-orgs reports it. */
const organizationIds = new Map<string, string>();
let adminOrgs: Awaited<ReturnType<typeof startFakeAdminOrgs>>;

const HOUR = 3600_000;
/** A short upload lease, so "the holder died" takes a second here. */
const LEASE_MS = 1000;
const inAnHour = () => toTimestamp(Date.now() + HOUR);
const uploadTokens = new UploadTokens(testSigningKeys);
/** The session a sealed upload token names. */
const sessionIdOf = (token: string) => uploadTokens.open(token)!.sessionId;

const remote = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (err) {
    return readServiceError(err);
  }
  throw new Error('expected the call to fail');
};

const newSession = (overrides: Partial<storageV1.CreateUploadSessionRequest> = {}) => {
  const org = overrides.organization ?? `org-${randomBytes(3).toString('hex')}`;
  const setId = overrides.ownerParentId ?? `polset-${randomBytes(4).toString('hex')}`;
  return storage
    .CreateUploadSession({
      organization: org,
      ownerKind: 'UPLOAD_OWNER_KIND_POLICY_SET_VERSION',
      ownerId: `polsetver-${randomBytes(4).toString('hex')}`,
      ownerParentId: setId,
      expiresAt: inAnHour(),
      ...overrides,
    })
    .then((s) => ({ ...s, organization: org, setId }));
};

const publish = (
  topic: { name: string; type: string },
  payload: object,
  eventId = randomUUID(),
): Promise<void> => {
  const message: BusMessage = {
    topic: topic.name,
    key: 'k',
    eventId,
    payload: encodeMessage(topic.type, payload),
    headers: {},
  };
  return transport.publish([message]);
};

beforeAll(async () => {
  db = await createTestDatabase('ph_storage');
  dataDir = mkdtempSync(join(tmpdir(), 'policyhub-storage-'));
  transport = new InProcessTransport();
  await transport.subscribe('test-observer', [TOPICS.uploadCompleted.name], async (m) => {
    completed.push(decodeMessage(TOPICS.uploadCompleted.type, m.payload));
  });
  adminOrgs = await startFakeAdminOrgs(organizations, organizationIds);
  service = await startStorage({
    adminOrgsAddress: adminOrgs.address,
    databaseUrl: db.url,
    grpcAddress: '127.0.0.1:0',
    transport,
    logger: createLogger('storage', 'silent'),
    signingKeys: testSigningKeys,
    settings: {
      objects: { kind: 'filesystem', root: join(dataDir, 'objects') },
      stagingDir: join(dataDir, 'staging'),
      limits: {
        ...DEFAULT_UPLOAD_LIMITS,
        maxBytes: 64 * 1024,
        maxObjectBytes: 64 * 1024,
        uploadLeaseMs: LEASE_MS,
      },
      // The tests run the sweeper themselves (service.sweeper.sweep()).
      sweepIntervalMs: HOUR,
    },
  });
  storage = createStorageClient(service.address);
});

afterAll(async () => {
  storage?.close();
  await service?.close();
  await adminOrgs?.close();
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

beforeEach(() => {
  completed = [];
});

describe('upload sessions', () => {
  it('answers a sealed base64url token naming the session, and keeps neither it nor its hash', async () => {
    const s = await newSession();
    expect(s.token).toMatch(/^[A-Za-z0-9_-]{60,}$/);
    expect(uploadTokens.open(s.token)).toEqual({
      sessionId: s.sessionId,
      expiresAt: fromTimestamp(s.expiresAt)!.getTime(),
    });
    expect(s.objectKey).toBe(
      `${s.organization}/policy-sets/${s.setId}/versions/${s.objectKey.split('/').pop()}`,
    );
    const { rows } = await service.db.query('SELECT * FROM upload_sessions WHERE id = $1', [s.sessionId]);
    expect(rows[0]).toMatchObject({ token_sha256: null });
    const dump = JSON.stringify((await service.db.query('SELECT * FROM upload_sessions')).rows);
    expect(dump).not.toContain(s.token);
    expect(dump).not.toContain(hashUploadToken(s.token));
  });

  it('takes an upload with any token minted for the session, once for all of them', async () => {
    const s = await newSession();
    const expiresAt = fromTimestamp(s.expiresAt)!;
    // The owner mints a fresh token on every read; each is the session's URL.
    const byOwner = uploadTokens.mint(s.sessionId, expiresAt);
    expect(byOwner).not.toBe(s.token);
    // A token sealed with a key storage does not list names nothing.
    const foreign = new UploadTokens([{ id: 'other', secret: Buffer.from('o'.repeat(32)) }]);
    expect(
      (await remote(storage.upload(foreign.mint(s.sessionId, expiresAt), await policyArchive()))).code,
    ).toBe('STORAGE_UPLOAD_NOT_FOUND');
    expect((await storage.upload(byOwner, await policyArchive())).ok).toBe(true);
    // Single use: every token of the session is spent with it.
    expect((await remote(storage.upload(s.token, await policyArchive()))).code).toBe(
      'STORAGE_UPLOAD_ALREADY_USED',
    );
  });

  it('answers NOT_FOUND for altered tokens, unknown sessions and tokens that outlived their session', async () => {
    const s = await newSession();
    const expiresAt = fromTimestamp(s.expiresAt)!;
    const raw = Buffer.from(s.token, 'base64url');
    const flipped = (i: number) => {
      const b = Buffer.from(raw);
      b[i] = b[i]! ^ 0x20;
      return b.toString('base64url');
    };
    const tokens = [
      flipped(0),
      flipped(20),
      flipped(raw.length - 1),
      uploadTokens.mint('upl-doesnotexist0000', expiresAt),
      // Genuine, but past its own expiry while the session is still open: not this session's URL.
      uploadTokens.mint(s.sessionId, Date.now() - 1000),
      randomBytes(32).toString('base64url'),
    ];
    for (const token of tokens) {
      const err = await remote(storage.upload(token, await policyArchive()));
      expect(err, token).toMatchObject({ status: grpc.status.NOT_FOUND, code: 'STORAGE_UPLOAD_NOT_FOUND' });
    }
    expect((await storage.upload(s.token, await policyArchive())).ok).toBe(true);
  });

  it('still takes the random token of a session opened before sealed tokens, found by its hash', async () => {
    const s = await newSession();
    const legacy = randomBytes(32).toString('base64url');
    await service.db.query('UPDATE upload_sessions SET token_sha256 = $2 WHERE id = $1', [
      s.sessionId,
      hashUploadToken(legacy),
    ]);
    expect((await storage.upload(legacy, await policyArchive())).ok).toBe(true);
    expect((await remote(storage.upload(legacy, await policyArchive()))).code).toBe(
      'STORAGE_UPLOAD_ALREADY_USED',
    );
  });

  it('refuses sessions for unknown owner kinds or without a parent', async () => {
    expect((await remote(newSession({ ownerKind: 'UPLOAD_OWNER_KIND_UNSPECIFIED' }))).status).toBe(
      grpc.status.INVALID_ARGUMENT,
    );
    // A value this storage does not know (a newer caller's): refused, not a server error.
    expect((await remote(newSession({ ownerKind: 7 as never }))).code).toBe('STORAGE_INVALID_SESSION');
    expect((await remote(newSession({ ownerParentId: '' }))).code).toBe('STORAGE_INVALID_SESSION');
  });
});

describe('uploads', () => {
  it('stores a valid archive, records it, and emits upload-completed with its manifest', async () => {
    const s = await newSession();
    const bytes = await policyArchive();
    const result = await storage.upload(s.token, bytes, 100);
    expect(result).toMatchObject({
      ok: true,
      ownerKind: 'UPLOAD_OWNER_KIND_POLICY_SET_VERSION',
      sizeBytes: bytes.length,
    });
    // Fields that do not apply are unset, not empty strings.
    expect(result.errorCode).toBeUndefined();
    expect(result.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(await storage.getObject(s.objectKey)).toEqual(bytes);
    // Published before Upload returned (the relay is flushed after the commit).
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({
      organization: s.organization,
      ownerKind: 'UPLOAD_OWNER_KIND_POLICY_SET_VERSION',
      // The word under the old field too, for the previous release's consumers (ADR 0035).
      legacyOwnerKind: 'policy-set-version',
      ownerParentId: s.setId,
      ok: true,
      objectKey: s.objectKey,
      sha256: result.sha256,
      files: [
        expect.objectContaining({ path: 'sentinel.hcl' }),
        expect.objectContaining({ path: 'policies/allow-all.sentinel' }),
      ],
    });
    const { rows } = await service.db.query(
      'SELECT size_bytes, sha256, manifest FROM objects WHERE key = $1',
      [s.objectKey],
    );
    expect(rows[0]).toMatchObject({ size_bytes: bytes.length, sha256: result.sha256 });
    expect(rows[0]?.manifest).toHaveLength(2);
  });

  it('accepts each URL once: a second upload is a conflict and changes nothing', async () => {
    const s = await newSession();
    const bytes = await policyArchive();
    await storage.upload(s.token, bytes);
    const again = await remote(storage.upload(s.token, await tarGzOf([{ name: 'other', content: 'x' }])));
    expect(again).toMatchObject({
      status: grpc.status.FAILED_PRECONDITION,
      code: 'STORAGE_UPLOAD_ALREADY_USED',
    });
    expect(await storage.getObject(s.objectKey)).toEqual(bytes);
    expect(completed).toHaveLength(1);
  });

  it('answers NOT_FOUND for unknown and malformed tokens', async () => {
    const unknown = await remote(
      storage.upload(randomBytes(32).toString('base64url'), await policyArchive()),
    );
    expect(unknown).toMatchObject({ status: grpc.status.NOT_FOUND, code: 'STORAGE_UPLOAD_NOT_FOUND' });
    expect((await remote(storage.upload('../../etc', await policyArchive()))).status).toBe(
      grpc.status.NOT_FOUND,
    );
  });

  it('refuses an expired URL with a clear message and stores nothing', async () => {
    const s = await newSession({ expiresAt: toTimestamp(Date.now() - 1000) });
    const err = await remote(storage.upload(s.token, await policyArchive()));
    expect(err).toMatchObject({ status: grpc.status.FAILED_PRECONDITION, code: 'STORAGE_UPLOAD_EXPIRED' });
    expect(err.items[0]?.detail).toMatch(/expired at .*create a new policy set version/);
    expect(await service.store.stat(s.objectKey)).toBeUndefined();
    expect(completed).toHaveLength(0);
  });

  it('rejects a hostile archive: the outcome is emitted, nothing is stored, the URL is spent', async () => {
    const s = await newSession();
    const result = await storage.upload(
      s.token,
      await tarGzOf([{ name: '../escape.sentinel', content: 'x' }]),
    );
    expect(result).toMatchObject({ ok: false, errorCode: 'STORAGE_ARCHIVE_PATH_TRAVERSAL' });
    expect(result.errorMessage).toContain('"../escape.sentinel"');
    expect(completed).toEqual([
      expect.objectContaining({
        ok: false,
        errorCode: 'STORAGE_ARCHIVE_PATH_TRAVERSAL',
        files: [],
      }),
    ]);
    expect(completed[0]?.objectKey).toBeUndefined();
    expect(result.sha256).toBeUndefined();
    expect(await service.store.stat(s.objectKey)).toBeUndefined();
    expect((await remote(storage.upload(s.token, await policyArchive()))).code).toBe(
      'STORAGE_UPLOAD_ALREADY_USED',
    );
  });

  it.each([
    [
      'a pax global header that renames the next file',
      () => gzipSync(rawTar(rawPax([['path', '../../x']], 'g'), rawFile('a.sentinel', 'x'))),
      'STORAGE_ARCHIVE_GLOBAL_HEADER',
    ],
    [
      'links that escape only on a case-insensitive file system',
      () =>
        tarGzOf([
          { name: 'f', content: 'x' },
          { name: 'dir', type: 'symlink', linkname: '.' },
          { name: 'x', type: 'symlink', linkname: 'DIR/..' },
        ]),
      'STORAGE_ARCHIVE_LINK_ESCAPE',
    ],
  ] as const)('rejects %s and emits the failed outcome', async (_label, build, code) => {
    const s = await newSession();
    const result = await storage.upload(s.token, await build());
    expect(result).toMatchObject({ ok: false, errorCode: code });
    expect(completed).toEqual([
      expect.objectContaining({ ok: false, errorCode: code, errorMessage: result.errorMessage, files: [] }),
    ]);
    expect(await service.store.stat(s.objectKey)).toBeUndefined();
  });

  it('checks the layout the session asks for: a README-only archive fails a Sentinel session', async () => {
    const s = await newSession({ layout: 'ARCHIVE_LAYOUT_SENTINEL' });
    const result = await storage.upload(
      s.token,
      await tarGzOf([{ name: 'README.md', content: '# policies' }]),
    );
    expect(result).toMatchObject({
      ok: false,
      errorCode: 'STORAGE_ARCHIVE_CONFIG_MISSING',
      errorMessage: 'the archive has no sentinel.hcl at its root',
    });
    expect(completed).toEqual([
      expect.objectContaining({ ok: false, errorCode: 'STORAGE_ARCHIVE_CONFIG_MISSING' }),
    ]);
    expect(await service.store.stat(s.objectKey)).toBeUndefined();

    const inRoot = await newSession({ layout: 'ARCHIVE_LAYOUT_SENTINEL', layoutRoot: './governance/' });
    const ok = await storage.upload(
      inRoot.token,
      await tarGzOf([
        { name: 'governance/sentinel.hcl', content: 'policy "a" {\n  source = "./a.sentinel"\n}\n' },
        { name: 'governance/a.sentinel', content: 'main = rule { true }\n' },
      ]),
    );
    expect(ok).toMatchObject({ ok: true });
    expect(ok.errorCode).toBeUndefined();
    // What the configuration declares travels with the event, read while the archive was checked.
    expect(completed.at(-1)).toMatchObject({
      ok: true,
      declaration: {
        root: 'governance',
        configPath: 'governance/sentinel.hcl',
        policies: [
          { name: 'a', enforcementLevel: 'DECLARED_ENFORCEMENT_LEVEL_ADVISORY', source: './a.sentinel' },
        ],
        sentinelBlocksJson: JSON.stringify({ policy: { a: [{ source: './a.sentinel' }] } }),
      },
    });
  });

  it('reads a stored archive again and answers the declaration its upload reported', async () => {
    const s = await newSession({ layout: 'ARCHIVE_LAYOUT_SENTINEL', layoutRoot: 'governance' });
    const uploaded = await storage.upload(
      s.token,
      await tarGzOf([
        {
          name: 'governance/sentinel.hcl',
          content:
            'param "limit" {\n  value = 3\n}\npolicy "a" {\n  source = "./a.sentinel"\n  enforcement_level = "hard-mandatory"\n}\npolicy "b" {\n  source = "./b.sentinel"\n}\n',
        },
        { name: 'governance/a.sentinel', content: 'main = rule { true }\n' },
        { name: 'governance/b.sentinel', content: 'main = rule { false }\n' },
      ]),
    );
    expect(uploaded).toMatchObject({ ok: true });
    const atUpload = completed.at(-1)?.declaration;
    expect(atUpload?.policies).toHaveLength(2);

    const again = await storage.ReadArchiveDeclaration({
      key: s.objectKey,
      layout: 'ARCHIVE_LAYOUT_SENTINEL',
      layoutRoot: 'governance',
    });
    expect(again).toMatchObject({ ok: true });
    expect(again.declaration).toEqual(atUpload);

    // Read as another layout, the same archive does not conform, and says why.
    const asOpa = await storage.ReadArchiveDeclaration({
      key: s.objectKey,
      layout: 'ARCHIVE_LAYOUT_OPA',
      layoutRoot: 'governance',
    });
    expect(asOpa).toMatchObject({
      ok: false,
      declaration: null,
      errorCode: 'STORAGE_ARCHIVE_CONFIG_MISSING',
      errorMessage: 'the archive has no policies.hcl or policies.json in "governance"',
    });
  });

  it('answers NOT_FOUND for an archive that is not stored, and refuses a read without a layout', async () => {
    const s = await newSession({ layout: 'ARCHIVE_LAYOUT_SENTINEL' });
    const missing = await remote(
      storage.ReadArchiveDeclaration({ key: s.objectKey, layout: 'ARCHIVE_LAYOUT_SENTINEL', layoutRoot: '' }),
    );
    expect(missing).toMatchObject({ status: grpc.status.NOT_FOUND, code: 'STORAGE_OBJECT_NOT_FOUND' });

    await storage.putObject(s.objectKey, await policyArchive());
    const noLayout = await remote(
      storage.ReadArchiveDeclaration({
        key: s.objectKey,
        layout: 'ARCHIVE_LAYOUT_UNSPECIFIED',
        layoutRoot: '',
      }),
    );
    expect(noLayout.code).toBe('STORAGE_INVALID_LAYOUT');
    // An object that is not an archive at all is read as an upload would be: refused, not a fault.
    await storage.putObject(s.objectKey, Buffer.from('{"plan": true}'));
    expect(
      await storage.ReadArchiveDeclaration({
        key: s.objectKey,
        layout: 'ARCHIVE_LAYOUT_SENTINEL',
        layoutRoot: '',
      }),
    ).toMatchObject({ ok: false, errorCode: 'STORAGE_ARCHIVE_NOT_GZIP' });
  });

  it('refuses sessions with an unknown layout or a root outside the archive', async () => {
    expect((await remote(newSession({ layout: 'ARCHIVE_LAYOUT_UNSPECIFIED' }))).code).toBe(
      'STORAGE_INVALID_SESSION',
    );
    expect((await remote(newSession({ layout: 9 as never }))).code).toBe('STORAGE_INVALID_SESSION');
    expect((await remote(newSession({ expiresAt: null }))).code).toBe('STORAGE_INVALID_SESSION');
    expect((await remote(newSession({ layout: 'ARCHIVE_LAYOUT_SENTINEL', layoutRoot: '../up' }))).code).toBe(
      'STORAGE_INVALID_SESSION',
    );
  });

  it('stops reading at the size limit and answers while the sender is still sending', async () => {
    const s = await newSession();
    const result = await storage.upload(
      s.token,
      await tarGzOf([{ name: 'big.bin', content: randomBytes(1024 * 1024) }]),
    );
    expect(result).toMatchObject({ ok: false, errorCode: 'STORAGE_ARCHIVE_TOO_LARGE' });
    expect(await service.store.stat(s.objectKey)).toBeUndefined();
  });

  it('releases the URL untouched when the sender goes away mid-upload', async () => {
    const s = await newSession();
    const bytes = await policyArchive();
    await new Promise<void>((resolve) => {
      const call = storage.raw.Upload(storage.metadata(), () => resolve());
      call.write({ header: { token: s.token } });
      call.write({ data: bytes.subarray(0, 50) });
      setTimeout(() => call.cancel(), 50);
    });
    // The hold is released right after the cancellation reaches storage.
    const result = await waitFor(async () => {
      try {
        return await storage.upload(s.token, bytes);
      } catch {
        return undefined;
      }
    });
    expect(result.ok).toBe(true);
    expect(completed).toHaveLength(1);
  });

  it('lets only one of two simultaneous uploads to the same URL proceed', async () => {
    const s = await newSession();
    const bytes = await policyArchive();
    let finishFirst!: () => void;
    const first = new Promise<storageV1.UploadResponse__Output>((resolve, reject) => {
      const call = storage.raw.Upload(storage.metadata(), (err, res) => (err ? reject(err) : resolve(res!)));
      call.write({ header: { token: s.token } });
      call.write({ data: bytes.subarray(0, 10) });
      finishFirst = () => {
        call.write({ data: bytes.subarray(10) });
        call.end();
      };
    });
    // Once the first upload holds the URL, a second one is turned away at once.
    await waitFor(async () => {
      const { rows } = await service.db.query('SELECT claimed_by FROM upload_sessions WHERE id = $1', [
        sessionIdOf(s.token),
      ]);
      return rows[0]?.claimed_by;
    });
    const second = await remote(storage.upload(s.token, bytes));
    expect(second.code).toBe('STORAGE_UPLOAD_IN_PROGRESS');
    expect(second.status).toBe(grpc.status.FAILED_PRECONDITION);
    finishFirst();
    expect((await first).ok).toBe(true);
  });
});

describe('uploads for disabled or deleted organizations (ADR 0018)', () => {
  const sessionRow = async (token: string) =>
    (
      await service.db.query('SELECT used_at, claimed_by FROM upload_sessions WHERE id = $1', [
        sessionIdOf(token),
      ])
    ).rows[0];

  it('refuses while the organization is disabled, stores nothing, and takes the same URL once enabled', async () => {
    const s = await newSession();
    organizations.set(s.organization, 'disabled');
    const refused = await remote(storage.upload(s.token, await policyArchive()));
    expect(refused).toMatchObject({
      status: grpc.status.FAILED_PRECONDITION,
      code: 'STORAGE_UPLOAD_ORGANIZATION_DISABLED',
    });
    expect(refused.items[0]?.detail).toMatch(/disabled.*nothing was stored/);
    expect(await service.store.stat(s.objectKey)).toBeUndefined();
    expect(completed).toEqual([]);
    expect(await sessionRow(s.token)).toEqual({ used_at: null, claimed_by: null });

    organizations.delete(s.organization);
    expect((await storage.upload(s.token, await policyArchive())).ok).toBe(true);
    expect(completed).toHaveLength(1);
  });

  it('answers NOT_FOUND when the organization is gone, before its sessions were revoked', async () => {
    const s = await newSession();
    organizations.set(s.organization, 'missing');
    const refused = await remote(storage.upload(s.token, await policyArchive()));
    expect(refused).toMatchObject({ status: grpc.status.NOT_FOUND, code: 'STORAGE_UPLOAD_NOT_FOUND' });
    expect(await service.store.stat(s.objectKey)).toBeUndefined();
    expect(completed).toEqual([]);
  });

  it('refuses an upload whose organization was disabled while the body streamed in', async () => {
    const s = await newSession();
    const bytes = await policyArchive();
    let finish!: () => void;
    const upload = new Promise<storageV1.UploadResponse__Output>((resolve, reject) => {
      const call = storage.raw.Upload(storage.metadata(), (err, res) => (err ? reject(err) : resolve(res!)));
      call.write({ header: { token: s.token } });
      call.write({ data: bytes.subarray(0, 10) });
      finish = () => {
        call.write({ data: bytes.subarray(10) });
        call.end();
      };
    });
    await waitFor(async () => (await sessionRow(s.token))?.claimed_by);
    organizations.set(s.organization, 'disabled');
    finish();
    const refused = await remote(upload);
    expect(refused.code).toBe('STORAGE_UPLOAD_ORGANIZATION_DISABLED');
    expect(await service.store.stat(s.objectKey)).toBeUndefined();
    expect(completed).toEqual([]);
    expect(await sessionRow(s.token)).toEqual({ used_at: null, claimed_by: null });
  });

  it("asks admin-orgs about the upload's own organization, not before the token is known good", async () => {
    const before = adminOrgs.calls.length;
    await remote(storage.upload(randomBytes(32).toString('base64url'), await policyArchive()));
    expect(adminOrgs.calls.length).toBe(before);
    const s = await newSession();
    await storage.upload(s.token, await policyArchive());
    expect(adminOrgs.calls.slice(before)).toEqual([s.organization, s.organization]);
  });
});

describe('upload leases and the upload sweeper (ADR 0024)', () => {
  const sessionState = async (token: string) =>
    (
      await service.db.query<{
        used_at: string | null;
        expired_at: string | null;
        claimed_by: string | null;
      }>('SELECT used_at, expired_at, claimed_by FROM upload_sessions WHERE id = $1', [sessionIdOf(token)])
    ).rows[0];
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** An upload that sends its first bytes, then waits for finish(). */
  function startHeldUpload(token: string, bytes: Buffer) {
    let finish!: () => void;
    const done = new Promise<storageV1.UploadResponse__Output>((resolve, reject) => {
      const call = storage.raw.Upload(storage.metadata(), (err, res) => (err ? reject(err) : resolve(res!)));
      call.write({ header: { token } });
      call.write({ data: bytes.subarray(0, 10) });
      finish = () => {
        call.write({ data: bytes.subarray(10) });
        call.end();
      };
    });
    return { done, finish: () => finish() };
  }

  it('a running upload renews its lease: its URL stays held for longer than one lease', async () => {
    const s = await newSession();
    const bytes = await policyArchive();
    const held = startHeldUpload(s.token, bytes);
    await waitFor(async () => (await sessionState(s.token))?.claimed_by);
    await pause(3 * LEASE_MS);
    expect((await remote(storage.upload(s.token, bytes))).code).toBe('STORAGE_UPLOAD_IN_PROGRESS');
    held.finish();
    expect((await held.done).ok).toBe(true);
  });

  it("an upload that lost its lease to another attempt publishes nothing and leaves the winner's archive", async () => {
    const s = await newSession();
    const stalled = startHeldUpload(s.token, await policyArchive());
    await waitFor(async () => (await sessionState(s.token))?.claimed_by);
    const winner = await tarGzOf([
      { name: 'sentinel.hcl', content: 'policy "second" {\n  enforcement_level = "advisory"\n}\n' },
      { name: 'second.sentinel', content: 'main = rule { true }\n' },
    ]);
    // The first attempt stalls past its lease (as if its process hung): a retry takes the URL.
    const retried = await waitFor(async () => {
      await service.db.query(
        "UPDATE upload_sessions SET claimed_until = now() - interval '1 second' WHERE id = $1",
        [sessionIdOf(s.token)],
      );
      return storage.upload(s.token, winner).catch(() => undefined);
    });
    expect(retried.ok).toBe(true);
    stalled.finish();
    const late = await stalled.done.then(
      () => undefined,
      (err: unknown) => readServiceError(err),
    );
    expect(late?.code).toBe('STORAGE_UPLOAD_NOT_FOUND');
    const stored: Buffer[] = [];
    for await (const chunk of await service.store.get(s.objectKey)) stored.push(chunk as Buffer);
    expect(Buffer.concat(stored).equals(winner)).toBe(true);
    expect(completed.filter((e) => e.ok)).toHaveLength(1);
  });

  it('settles a URL that expired unused: failed upload-completed once, the URL refused, stray bytes deleted', async () => {
    const expiredId = `polsetver-${randomBytes(4).toString('hex')}`;
    const expired = await newSession({
      ownerId: expiredId,
      expiresAt: toTimestamp(Date.now() - 1000),
    });
    const live = await newSession();
    const used = await newSession({ expiresAt: toTimestamp(Date.now() + 1500) });
    expect((await storage.upload(used.token, await policyArchive())).ok).toBe(true);
    await waitFor(async () => Date.now() > fromTimestamp(used.expiresAt)!.getTime() || undefined);
    // Bytes a put of an attempt that died before recording its outcome left under the key.
    await storage.putObject(expired.objectKey, Buffer.from('partial'));
    completed = [];

    // (Earlier tests left expired sessions too; they are settled in the same pass.)
    expect((await service.sweeper!.sweep()).expiredSessions).toBeGreaterThanOrEqual(1);
    expect(completed.filter((e) => e.ownerId === expiredId)).toEqual([
      expect.objectContaining({
        organization: expired.organization,
        ownerKind: 'UPLOAD_OWNER_KIND_POLICY_SET_VERSION',
        ownerParentId: expired.setId,
        ok: false,
        errorCode: 'STORAGE_UPLOAD_EXPIRED',
        errorMessage: expect.stringMatching(
          /^The upload URL expired at .* without an upload; create a new policy set version/,
        ),
      }),
    ]);
    expect(await service.store.stat(expired.objectKey)).toBeUndefined();
    expect(await sessionState(expired.token)).toMatchObject({ expired_at: expect.anything(), used_at: null });
    expect((await remote(storage.upload(expired.token, await policyArchive()))).code).toBe(
      'STORAGE_UPLOAD_EXPIRED',
    );
    expect(await sessionState(live.token)).toMatchObject({ expired_at: null });
    expect(await sessionState(used.token)).toMatchObject({ expired_at: null, used_at: expect.anything() });

    // Settled once: later passes find nothing.
    const settled = completed.length;
    expect((await service.sweeper!.sweep()).expiredSessions).toBe(0);
    expect(completed).toHaveLength(settled);
  });

  it('does not expire a URL an upload started before the expiry still holds; the upload completes', async () => {
    const s = await newSession({ expiresAt: toTimestamp(Date.now() + 1500) });
    const held = startHeldUpload(s.token, await policyArchive());
    await waitFor(async () => (await sessionState(s.token))?.claimed_by);
    await waitFor(async () => Date.now() > fromTimestamp(s.expiresAt)!.getTime() + 200 || undefined);
    await service.sweeper!.sweep();
    expect(await sessionState(s.token)).toMatchObject({ expired_at: null });
    held.finish();
    expect(await held.done).toMatchObject({ ok: true });
    expect(completed).toEqual([expect.objectContaining({ ownerId: expect.any(String), ok: true })]);
  });

  it('removes staging files and store temporaries a dead process left, not those of live uploads', async () => {
    const staging = join(dataDir, 'staging');
    const temporaries = join(dataDir, 'objects', '.tmp');
    mkdirSync(staging, { recursive: true });
    mkdirSync(temporaries, { recursive: true });
    const old = new Date(Date.now() - 2 * HOUR);
    const stale = join(staging, 'left-by-a-crash.upload');
    const fresh = join(staging, 'in-progress-elsewhere.upload');
    const otherFile = join(staging, 'not-ours.txt');
    const staleTemporary = join(temporaries, 'interrupted.part');
    // A partial upload written straight into the store, by an upload alive elsewhere.
    const freshTemporary = join(temporaries, 'being-written.part');
    for (const file of [stale, fresh, otherFile, staleTemporary, freshTemporary])
      writeFileSync(file, 'partial');
    for (const file of [stale, otherFile, staleTemporary]) utimesSync(file, old, old);

    expect(await service.sweeper!.sweep()).toMatchObject({ stagingFiles: 1, objectTemporaries: 1 });
    expect([stale, fresh, otherFile, staleTemporary, freshTemporary].map((f) => existsSync(f))).toEqual([
      false,
      true,
      true,
      false,
      true,
    ]);
    rmSync(fresh);
    rmSync(freshTemporary);
    rmSync(otherFile);
  });
});

describe('objects by key', () => {
  it('puts, gets and deletes objects; a missing one is NOT_FOUND; bad keys are refused', async () => {
    const key = `org-${randomBytes(3).toString('hex')}/runs/run-1/plan.json`;
    const body = Buffer.from(JSON.stringify({ resource_changes: [] }));
    const info = await storage.putObject(key, body, 'application/json');
    expect(info).toMatchObject({
      key,
      sizeBytes: body.length,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(await storage.getObject(key)).toEqual(body);
    await storage.DeleteObjects({ keys: [key], prefixes: [] });
    expect((await remote(storage.getObject(key))).status).toBe(grpc.status.NOT_FOUND);
    expect((await remote(storage.getObject('../secret'))).status).toBe(grpc.status.INVALID_ARGUMENT);
    expect((await remote(storage.DeleteObjects({ keys: [], prefixes: [''] }))).code).toBe(
      'STORAGE_INVALID_KEY',
    );
    expect((await remote(storage.putObject(key, randomBytes(65 * 1024)))).status).toBe(
      grpc.status.RESOURCE_EXHAUSTED,
    );
  });
});

describe('deletions', () => {
  it("removes a deleted policy set's archives and revokes its URLs, once", async () => {
    const done = await newSession();
    await storage.upload(done.token, await policyArchive());
    const open = await newSession({ organization: done.organization, ownerParentId: done.setId });
    const other = await newSession({ organization: done.organization });
    await storage.upload(other.token, await policyArchive());

    const eventId = randomUUID();
    const payload = { organization: done.organization, policySetId: done.setId };
    await publish(TOPICS.policySetDeleted, payload, eventId);
    await publish(TOPICS.policySetDeleted, payload, eventId);

    expect(await service.store.stat(done.objectKey)).toBeUndefined();
    expect(await service.store.stat(other.objectKey)).toEqual({ size: expect.any(Number) });
    expect((await remote(storage.upload(open.token, await policyArchive()))).status).toBe(
      grpc.status.NOT_FOUND,
    );
    const { rows } = await service.db.query(
      'SELECT count(*)::int AS n FROM processed_events WHERE event_id = $1',
      [eventId],
    );
    expect(rows[0]?.n).toBe(1);
  });

  it("removes everything of a deleted organization and nothing of another's", async () => {
    const a = await newSession({ organizationId: 'org-id-a' });
    const b = await newSession({ organizationId: 'org-id-b' });
    for (const s of [a, b]) await storage.upload(s.token, await policyArchive());
    const plan = `${a.organization}/runs/run-1/plan.json`;
    await storage.putObject(plan, Buffer.from('{}'), '', 'org-id-a');

    await publish(TOPICS.organizationDeleted, { organization: a.organization, organizationId: 'org-id-a' });

    expect(await service.store.list(`${a.organization}/`)).toEqual([]);
    expect(await service.store.list(`${b.organization}/`)).toEqual([b.objectKey]);
    const { rows } = await service.db.query('SELECT key FROM objects WHERE organization = $1', [
      a.organization,
    ]);
    expect(rows).toEqual([]);
  });

  it("keeps the archives and upload URLs of a new organization that took a deleted one's name", async () => {
    const name = `org-${randomBytes(3).toString('hex')}`;
    organizationIds.set(name, 'org-id-old');
    const old = await newSession({ organization: name, organizationId: 'org-id-old' });
    await storage.upload(old.token, await policyArchive());
    const oldPending = await newSession({ organization: name, organizationId: 'org-id-old' });
    // The name was re-registered before storage heard of the deletion: the old organization's
    // upload URL no longer takes uploads, as for any deleted organization.
    organizationIds.set(name, 'org-id-new');
    expect((await remote(storage.upload(oldPending.token, await policyArchive())))?.status).toBe(5);
    const fresh = await newSession({ organization: name, organizationId: 'org-id-new' });
    await storage.upload(fresh.token, await policyArchive());
    const freshPending = await newSession({ organization: name, organizationId: 'org-id-new' });
    const freshPlan = `${name}/runs/run-new/plan.json`;
    await storage.putObject(freshPlan, Buffer.from('{}'), '', 'org-id-new');

    await publish(TOPICS.organizationDeleted, { organization: name, organizationId: 'org-id-old' });

    expect((await service.store.list(`${name}/`)).sort()).toEqual([fresh.objectKey, freshPlan].sort());
    expect((await remote(storage.upload(oldPending.token, await policyArchive())))?.status).toBe(5);
    expect((await storage.upload(freshPending.token, await policyArchive())).ok).toBe(true);
  });

  it('dead-letters an event it cannot process, with the error, instead of dropping it', async () => {
    const eventId = randomUUID();
    await transport.publish([
      {
        topic: TOPICS.policySetDeleted.name,
        key: 'k',
        eventId,
        payload: Buffer.from([0xff, 0xff, 0xff]),
        headers: {},
      },
    ]);
    const { rows } = await service.db.query(
      'SELECT consumer, topic, error, attempts FROM dead_letters WHERE event_id = $1',
      [eventId],
    );
    expect(rows).toEqual([
      {
        consumer: 'storage',
        topic: TOPICS.policySetDeleted.name,
        error: expect.stringMatching(/\S/),
        attempts: 5,
      },
    ]);
  });
});
