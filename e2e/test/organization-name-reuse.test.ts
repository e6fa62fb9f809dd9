import type { Queryable } from '@policyhub/db';
import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from './support/api.js';
import { createOrganizationAs } from './support/admin-organizations.js';
import { policyArchive, putArchive } from './support/archives.js';
import {
  createPolicy,
  createPolicySet,
  createUser,
  createWorkspace,
  uniqueName,
} from './support/fixtures.js';
import { createRun, type InternalRunsApi, internalRunsApi, planJson } from './support/runs.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * An organization deleted and re-created under the same name is another
 * organization. Other services learn of the deletion through admin-orgs.organization-deleted; until
 * then (and after) the new organization must see none of the old one's data, and the old one's
 * deletion must remove none of the new one's.
 */
describe('an organization name registered again after a deletion', () => {
  let t: TestSystem;
  let internal: InternalRunsApi;

  beforeAll(async () => {
    t = await startTestSystem();
    internal = internalRunsApi(t);
  });
  afterAll(async () => {
    internal?.close();
    await t?.stop();
  });

  /**
   * Holds back every consumer of policy-sets, runs and storage: each applies an event in a
   * transaction that first records it in processed_events, which this lock blocks. Reads and the
   * services' own writes go on. Resolves to a release function.
   */
  async function holdConsumers(): Promise<() => Promise<void>> {
    const held: Array<{ release: () => void; done: Promise<unknown> }> = [];
    for (const service of ['policy-sets', 'runs', 'storage']) {
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const done = t.system.services[service]!.db.transaction(async (tx: Queryable) => {
        await tx.query('LOCK TABLE processed_events IN EXCLUSIVE MODE');
        locked();
        await released;
      });
      await Promise.race([isLocked, done]);
      held.push({ release, done });
    }
    return async () => {
      for (const h of held) h.release();
      await Promise.all(held.map((h) => h.done));
    };
  }

  /** Everything an organization owner can create: policies, sets, a ready version, a run with a check. */
  async function populate(api: ApiClient, org: string) {
    const workspace = await createWorkspace(api, org);
    const policy = await createPolicy(api, org, { name: 'shared-policy-name' });
    const set = await createPolicySet(
      api,
      org,
      { name: 'shared-set-name', global: true },
      { policies: [policy.id] },
    );
    const versioned = await createPolicySet(api, org, { name: 'versioned-set' });
    const created = await api.post(`/policy-sets/${versioned.id}/versions`);
    expect(created.status, created.text).toBe(201);
    const version = created.body.data.id as string;
    const put = await putArchive(created.body.data.links.upload as string, await policyArchive());
    expect(put.status, put.text).toBeLessThan(300);
    const run = await createRun(api, workspace.id);
    const reported = await internal.executor.ReportPlanFinished({ runId: run.id, planJson: planJson([]) });
    const check = reported.run!.policyCheckIds[0]!;
    expect(check).toMatch(/^polchk-/);
    return { workspace, policy, set, versioned, version, run: run.id, check };
  }

  const readable = (data: Awaited<ReturnType<typeof populate>>) => [
    `/workspaces/${data.workspace.id}`,
    `/policies/${data.policy.id}`,
    `/policy-sets/${data.set.id}`,
    `/policy-sets/${data.versioned.id}`,
    `/policy-set-versions/${data.version}`,
    `/runs/${data.run}`,
    `/policy-checks/${data.check}`,
  ];

  const archiveKeys = async (versionIds: string[]) =>
    (
      await t.system.services['policy-sets']!.db.query<{ object_key: string | null }>(
        'SELECT object_key FROM policy_set_versions WHERE id = ANY($1)',
        [versionIds],
      )
    ).rows.map((r) => r.object_key);
  const storedObjects = async (keys: string[]) =>
    (
      await t.system.services.storage!.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM objects WHERE key = ANY($1)',
        [keys],
      )
    ).rows[0]!.n;

  async function expectOnly(api: ApiClient, org: string, data: Awaited<ReturnType<typeof populate>>) {
    const sets = await api.get(`/organizations/${org}/policy-sets`);
    expect(sets.status).toBe(200);
    expect(sets.body.data.map((s: { id: string }) => s.id).sort()).toEqual(
      [data.set.id, data.versioned.id].sort(),
    );
    const policies = await api.get(`/organizations/${org}/policies`);
    expect(policies.body.data.map((p: { id: string }) => p.id)).toEqual([data.policy.id]);
    for (const path of readable(data)) expect((await api.get(path)).status, path).toBe(200);
  }

  it('while the deletion is still on its way, and after it arrived', async () => {
    const name = uniqueName('reused');
    const first = await createUser(t, 'first-owner');
    await createOrganizationAs(first.api, name);
    const old = await populate(first.api, name);
    await waitFor(
      async () =>
        (await first.api.get(`/policy-set-versions/${old.version}`)).body?.data?.attributes?.status ===
        'ready',
    );
    const [oldArchive] = await archiveKeys([old.version]);
    expect(await storedObjects([oldArchive!])).toBe(1);

    const release = await holdConsumers();
    let released = false;
    try {
      expect((await t.admin.delete(`/admin/organizations/${name}`)).status).toBe(204);
      const second = await createUser(t, 'second-owner');
      await createOrganizationAs(second.api, name);

      // The new organization sees nothing of the old one, by list or by id.
      for (const list of ['policy-sets', 'policies', 'workspaces']) {
        const res = await second.api.get(`/organizations/${name}/${list}`);
        expect(res.status, list).toBe(200);
        expect(res.body.data, list).toEqual([]);
      }
      for (const path of readable(old)) expect((await second.api.get(path)).status, path).toBe(404);

      // It can use the same names, and its runs get no check from the old organization's global set.
      const fresh = await populate(second.api, name);
      expect((await second.api.get(`/policy-checks/${fresh.check}`)).status).toBe(200);
      const checked = await t.system.services.runs!.db.query<{ policy_sets: Array<{ id: string }> }>(
        'SELECT policy_sets FROM policy_checks WHERE id = $1',
        [fresh.check],
      );
      expect(checked.rows[0]!.policy_sets.map((s) => s.id)).toEqual([fresh.set.id]);
      await release();
      released = true;

      // The old organization's deletion arrives: its data goes, the new one's stays.
      await waitFor(async () => {
        const { rows } = await t.system.services['policy-sets']!.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM policy_sets WHERE id = ANY($1)',
          [[old.set.id, old.versioned.id]],
        );
        return rows[0]!.n === 0;
      });
      await waitFor(async () => (await storedObjects([oldArchive!])) === 0);
      await waitFor(async () => {
        const { rows } = await t.system.services.runs!.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM runs WHERE id = $1',
          [old.run],
        );
        return rows[0]!.n === 0;
      });
      await waitFor(
        async () =>
          (await second.api.get(`/policy-set-versions/${fresh.version}`)).body?.data?.attributes?.status ===
          'ready',
      );
      await expectOnly(second.api, name, fresh);
      const [freshArchive] = await archiveKeys([fresh.version]);
      expect(await storedObjects([freshArchive!])).toBe(1);
      for (const path of readable(old)) expect((await t.admin.get(path)).status, path).toBe(404);
    } finally {
      if (!released) await release();
    }
  });

  it('after the deletion has propagated, the new organization starts empty and keeps what it creates', async () => {
    const name = uniqueName('reused');
    const first = await createUser(t, 'first-owner');
    await createOrganizationAs(first.api, name);
    const old = await populate(first.api, name);
    expect((await first.api.delete(`/organizations/${name}`)).status).toBe(204);
    for (const path of readable(old)) {
      await waitFor(async () => (await t.admin.get(path)).status === 404);
    }

    const second = await createUser(t, 'second-owner');
    await createOrganizationAs(second.api, name);
    for (const list of ['policy-sets', 'policies']) {
      expect((await second.api.get(`/organizations/${name}/${list}`)).body.data, list).toEqual([]);
    }
    const fresh = await populate(second.api, name);
    await waitFor(
      async () =>
        (await second.api.get(`/policy-set-versions/${fresh.version}`)).body?.data?.attributes?.status ===
        'ready',
    );
    await expectOnly(second.api, name, fresh);
  });
});
