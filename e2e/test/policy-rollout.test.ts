import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from './support/api.js';
import { policyArchive, putArchive, tarGzOf } from './support/archives.js';
import { createMember, createOrganization, createPolicySet, createWorkspace } from './support/fixtures.js';
import { claimCheck, createRun, type InternalRunsApi, internalRunsApi, planJson } from './support/runs.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * Safe policy rollout over HTTP (docs/policy-evaluation.md, "Rolling out a policy change"): the
 * version history with its filters and roles, staged versions, promote and rollback.
 */

let t: TestSystem;
let org: Awaited<ReturnType<typeof createOrganization>>;
let api: ApiClient;
let internal: InternalRunsApi;

beforeAll(async () => {
  t = await startTestSystem();
  internal = internalRunsApi(t);
  org = await createOrganization(t, 'rollout');
  api = org.owner.api;
});
afterAll(async () => {
  internal?.close();
  await t?.stop();
});

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A version of `setId`; `autoPromote` undefined sends no body (as clients do today). */
async function createVersion(setId: string, autoPromote?: boolean, client: ApiClient = api) {
  const body =
    autoPromote === undefined
      ? undefined
      : { data: { type: 'policy-set-versions', attributes: { 'auto-promote': autoPromote } } };
  return client.request('POST', `/policy-sets/${setId}/versions`, body, {
    'content-type': 'application/vnd.api+json',
  });
}

/** A version whose upload succeeded; its id and the archive's bytes. */
async function readyVersion(setId: string, policy: string, autoPromote?: boolean) {
  const created = await createVersion(setId, autoPromote);
  expect(created.status, created.text).toBe(201);
  const archive = await policyArchive(policy);
  const put = await putArchive(created.body.data.links.upload, archive);
  expect(put.status, put.text).toBe(200);
  return { id: created.body.data.id as string, archive };
}

const ids = (res: { body: { data: Array<{ id: string }> } }) => res.body.data.map((v) => v.id);

describe('version history', () => {
  it('says who created each version, its archive checksum and its role; filters by status and pages', async () => {
    const set = await createPolicySet(api, org.name);
    const first = await readyVersion(set.id, 'main = rule { true }\n');
    const second = await readyVersion(set.id, 'main = rule { 1 == 1 }\n');
    const pending = (await createVersion(set.id)).body.data.id as string;
    const broken = await createVersion(set.id);
    const refused = await putArchive(
      broken.body.data.links.upload,
      await tarGzOf([{ name: 'x.txt', content: 'x' }]),
    );
    expect(refused.status).toBe(422);

    const all = await api.get(`/policy-sets/${set.id}/versions`);
    expect(all.status, all.text).toBe(200);
    expect(ids(all)).toEqual([broken.body.data.id, pending, second.id, first.id]);
    const byId = new Map(all.body.data.map((v: { id: string }) => [v.id, v]));
    expect(byId.get(second.id)).toMatchObject({
      attributes: {
        status: 'ready',
        role: 'current',
        'archive-sha256': sha256(second.archive),
        // What its sentinel.hcl declares, as recorded at upload.
        'declared-policies': [{ name: 'allow', 'enforcement-level': 'advisory' }],
      },
      relationships: { 'created-by': { data: { id: org.owner.id, type: 'users' } } },
    });
    expect(byId.get(first.id)).toMatchObject({
      attributes: { status: 'ready', role: 'superseded', 'archive-sha256': sha256(first.archive) },
    });
    expect(byId.get(pending)).toMatchObject({
      attributes: { status: 'pending', role: null, 'archive-sha256': null, 'declared-policies': null },
    });
    expect(byId.get(broken.body.data.id)).toMatchObject({ attributes: { status: 'errored', role: null } });

    const ready = await api.get(`/policy-sets/${set.id}/versions?filter%5Bstatus%5D=ready`);
    expect(ids(ready)).toEqual([second.id, first.id]);
    expect(ready.body.meta.pagination['total-count']).toBe(2);
    const notReady = await api.get(`/policy-sets/${set.id}/versions?filter%5Bstatus%5D=pending,errored`);
    expect(ids(notReady)).toEqual([broken.body.data.id, pending]);

    const page2 = await api.get(
      `/policy-sets/${set.id}/versions?filter%5Bstatus%5D=ready&page%5Bsize%5D=1&page%5Bnumber%5D=2`,
    );
    expect(ids(page2)).toEqual([first.id]);
    expect(page2.body.meta.pagination).toMatchObject({
      'current-page': 2,
      'total-pages': 2,
      'total-count': 2,
    });

    // The version itself says the same.
    const shown = await api.get(`/policy-set-versions/${first.id}`);
    expect(shown.body.data).toEqual(byId.get(first.id));
  });

  it('refuses an unknown status word with a 422 naming the parameter, and hides the history without manage-policies', async () => {
    const set = await createPolicySet(api, org.name);
    const bad = await api.get(`/policy-sets/${set.id}/versions?filter%5Bstatus%5D=ready,live`);
    expect(bad.status, bad.text).toBe(422);
    expect(bad.body.errors[0]).toMatchObject({
      code: 'POLICY_SETS_INVALID_FILTER',
      source: { parameter: 'filter[status]' },
    });
    const reader = await createMember(t, org, ['read-runs']);
    expect((await reader.api.get(`/policy-sets/${set.id}/versions?filter%5Bstatus%5D=ready`)).status).toBe(
      404,
    );
    expect((await reader.api.get(`/policy-sets/${set.id}/versions?filter%5Bstatus%5D=live`)).status).toBe(
      404,
    );
  });
});

const setOf = async (id: string) => (await api.get(`/policy-sets/${id}`)).body.data;
const currentOf = async (setId: string) => (await setOf(setId)).relationships['current-version'].data?.id;
const promote = (versionId: string, client: ApiClient = api) =>
  client.post(`/policy-set-versions/${versionId}/actions/promote`, undefined);

describe('staged versions, promote and rollback', () => {
  it('keeps a version created with auto-promote false ready but not current until promoted', async () => {
    const set = await createPolicySet(api, org.name);
    const live = await readyVersion(set.id, 'main = rule { true }\n');
    const staged = await readyVersion(set.id, 'main = rule { false }\n', false);

    const shown = await api.get(`/policy-set-versions/${staged.id}`);
    expect(shown.body.data.attributes).toMatchObject({ status: 'ready', role: 'staged' });
    expect(await currentOf(set.id)).toBe(live.id);
    expect((await setOf(set.id)).relationships['newest-version'].data.id).toBe(staged.id);

    // An explicit true, and {}, are today's behaviour.
    const explicit = await readyVersion(set.id, 'main = rule { 2 == 2 }\n', true);
    expect(await currentOf(set.id)).toBe(explicit.id);
    const empty = await api.request('POST', `/policy-sets/${set.id}/versions`, {});
    expect(empty.status, empty.text).toBe(201);
  });

  it('promotes a staged version, rolls back to an older one, and records both with the actor', async () => {
    const set = await createPolicySet(api, org.name);
    const v1 = await readyVersion(set.id, 'main = rule { true }\n');
    const v2 = await readyVersion(set.id, 'main = rule { 3 == 3 }\n', false);
    const promoter = await createMember(t, org, ['manage-policies']);

    const promoted = await promote(v2.id, promoter.api);
    expect(promoted.status, promoted.text).toBe(200);
    expect(promoted.body.data).toMatchObject({ id: v2.id, attributes: { status: 'ready', role: 'current' } });
    expect(await currentOf(set.id)).toBe(v2.id);
    expect((await api.get(`/policy-set-versions/${v1.id}`)).body.data.attributes.role).toBe('superseded');

    // Rollback: the older version becomes current again.
    const rolledBack = await promote(v1.id);
    expect(rolledBack.status, rolledBack.text).toBe(200);
    expect(rolledBack.body.data.attributes.role).toBe('current');
    expect(await currentOf(set.id)).toBe(v1.id);
    const history = await api.get(`/policy-sets/${set.id}/versions?filter%5Bstatus%5D=ready`);
    expect(
      history.body.data.map((v: { id: string; attributes: { role: string } }) => [v.id, v.attributes.role]),
    ).toEqual([
      [v2.id, 'superseded'],
      [v1.id, 'current'],
    ]);

    // Promoting the current version again changes nothing and records nothing.
    expect((await promote(v1.id)).status).toBe(200);

    const promotions = await waitForTrail((events) => events.filter(isPromotionOf(set.id)).length >= 2);
    const mine = promotions.filter(isPromotionOf(set.id));
    expect(mine).toHaveLength(2);
    const byVersion = new Map(mine.map((e) => [e.resource.id, e]));
    expect(byVersion.get(v2.id)).toMatchObject({
      auth: { accessor_id: promoter.id },
      resource: { meta: { policy_set_id: set.id, previous_version_id: v1.id, rollback: false } },
    });
    expect(byVersion.get(v1.id)).toMatchObject({
      auth: { accessor_id: org.owner.id },
      resource: { meta: { policy_set_id: set.id, previous_version_id: v2.id, rollback: true } },
    });
  });

  it('evaluations started after a promotion use the new version; a check already created keeps its snapshot', async () => {
    const workspace = await createWorkspace(api, org.name);
    const set = await createPolicySet(api, org.name, {}, { workspaces: [workspace.id] });
    const v1 = await readyVersion(set.id, 'main = rule { true }\n');
    const v2 = await readyVersion(set.id, 'main = rule { 4 == 4 }\n', false);

    /** The version of `set` a plan reported now is checked against, as the evaluator is handed it. */
    const plannedCheck = async () => {
      const run = await createRun(api, workspace.id);
      const res = await internal.executor.ReportPlanFinished({
        runId: run.id,
        planJson: planJson(['null_resource']),
      });
      expect(res.run!.policyCheckIds).toHaveLength(1);
      return res.run!.policyCheckIds[0]!;
    };
    const versionOfCheck = async (checkId: string, leaseToken: string) => {
      const input = await internal.evaluator.GetPolicyCheckInput({ policyCheckId: checkId, leaseToken });
      return input.policySets.find((s) => s.id === set.id)?.versionId;
    };

    const before = await plannedCheck();
    const underWay = await claimCheck(internal, before);
    expect((await promote(v2.id)).status).toBe(200);
    expect(await versionOfCheck(before, underWay.leaseToken)).toBe(v1.id);

    const after = await plannedCheck();
    expect(await versionOfCheck(after, (await claimCheck(internal, after)).leaseToken)).toBe(v2.id);

    expect((await promote(v1.id)).status).toBe(200);
    const rolledBack = await plannedCheck();
    expect(await versionOfCheck(rolledBack, (await claimCheck(internal, rolledBack)).leaseToken)).toBe(v1.id);
  });

  it('refuses to promote a pending or errored version (409), and hides versions without manage-policies (404)', async () => {
    const set = await createPolicySet(api, org.name);
    const pending = (await createVersion(set.id, false)).body.data.id as string;
    const res = await promote(pending);
    expect(res.status, res.text).toBe(409);
    expect(res.body.errors[0]).toMatchObject({
      code: 'POLICY_SETS_VERSION_NOT_READY',
      detail: 'the version is pending; only a ready version can be promoted',
    });
    const broken = await createVersion(set.id, false);
    await putArchive(broken.body.data.links.upload, await tarGzOf([{ name: 'x.txt', content: 'x' }]));
    expect((await promote(broken.body.data.id)).body.errors[0].code).toBe('POLICY_SETS_VERSION_NOT_READY');

    const staged = await readyVersion(set.id, 'main = rule { true }\n', false);
    const reader = await createMember(t, org, ['read-runs', 'read-workspaces']);
    expect((await promote(staged.id, reader.api)).status).toBe(404);
    expect((await createVersion(set.id, false, reader.api)).status).toBe(404);
    // A bad body from someone who cannot see the set is still a 404.
    const hidden = await reader.api.post(`/policy-sets/${set.id}/versions`, {
      data: { attributes: { 'auto-promote': 'no' } },
    });
    expect(hidden.status).toBe(404);
    expect((await promote('polsetver-AAAAAAAAAAAAAAAA')).status).toBe(404);
    expect(await currentOf(set.id)).toBeUndefined();
  });

  it('refuses a malformed create body with a 422 pointing at it, creating nothing', async () => {
    const set = await createPolicySet(api, org.name);
    for (const [body, pointer] of [
      [
        { data: { type: 'policy-set-versions', attributes: { 'auto-promote': 'false' } } },
        '/data/attributes/auto-promote',
      ],
      [
        { data: { type: 'policy-set-versions', attributes: { 'auto-promote': 0 } } },
        '/data/attributes/auto-promote',
      ],
      [{ data: { type: 'policies', attributes: { 'auto-promote': false } } }, '/data/type'],
      [{ data: { type: 'policy-set-versions', attributes: [] } }, '/data/attributes'],
    ] as const) {
      const res = await api.post(`/policy-sets/${set.id}/versions`, body);
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors[0]).toMatchObject({ code: 'GATEWAY_INVALID_BODY', source: { pointer } });
    }
    expect((await api.get(`/policy-sets/${set.id}/versions`)).body.data).toEqual([]);
  });
});

interface AuditEvent {
  auth: { accessor_id: string | null };
  resource: { id: string; type: string; action: string; meta: Record<string, unknown> };
}

const isPromotionOf = (setId: string) => (e: AuditEvent) =>
  e.resource.type === 'policy_set_version' &&
  e.resource.action === 'promote' &&
  e.resource.meta.policy_set_id === setId;

/** The organization's trail once `predicate` holds (policy-sets' records arrive as events). */
async function waitForTrail(predicate: (events: AuditEvent[]) => boolean): Promise<AuditEvent[]> {
  for (let i = 0; i < 100; i++) {
    const res = await api.get(
      `/organization/audit-trail?filter%5Borganization%5D%5Bname%5D=${encodeURIComponent(org.name)}&page%5Bsize%5D=100`,
    );
    expect(res.status, res.text).toBe(200);
    if (predicate(res.body.data)) return res.body.data;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the audit trail never recorded the promotions');
}
