import { gzipSync } from 'node:zlib';
import { waitFor } from '@policyhub/testing';
import { pack } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from './support/api.js';
import { createOrganizationAs } from './support/admin-organizations.js';
import {
  createOrganization,
  createPolicy,
  createPolicySet,
  createUser,
  createWorkspace,
} from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';
import { sentinelHcl } from './support/archives.js';

/** A gzipped tar archive holding the given files. */
async function tarball(files: Record<string, string>): Promise<Uint8Array> {
  const archive = pack();
  for (const [name, content] of Object.entries(files)) archive.entry({ name }, content);
  archive.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of archive) chunks.push(chunk as Buffer);
  return gzipSync(Buffer.concat(chunks));
}

/** A ready policy set version: created, its archive uploaded, then polled until ready. */
async function uploadVersion(api: ApiClient, policySetId: string) {
  const created = await api.post(`/policy-sets/${policySetId}/versions`);
  expect(created.status, created.text).toBe(201);
  const upload = created.body.data.links.upload as string;
  const archive = await tarball({
    'sentinel.hcl': sentinelHcl('main'),
    'policies/main.sentinel': 'main = rule { true }\n',
  });
  const put = await fetch(upload, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body: archive,
  });
  expect(put.status).toBeLessThan(300);
  const id = created.body.data.id as string;
  await waitFor(
    async () => (await api.get(`/policy-set-versions/${id}`)).body?.data?.attributes?.status === 'ready',
  );
  return id;
}

describe('DELETE /admin/organizations/:name cascades to every service', () => {
  let t: TestSystem;

  beforeAll(async () => {
    t = await startTestSystem();
  });
  afterAll(() => t?.stop());

  it("removes the organization's policy sets, versions, archives, runs and comments", async () => {
    const org = await createOrganization(t, 'cascade');
    const api = org.owner.api;
    const workspace = await createWorkspace(api, org.name);
    const policy = await createPolicy(api, org.name);
    const policySet = await createPolicySet(
      api,
      org.name,
      {},
      { policies: [policy.id], workspaces: [workspace.id] },
    );
    const versioned = await createPolicySet(api, org.name);
    const version = await uploadVersion(api, versioned.id);
    const run = await api.post('/runs', {
      data: {
        type: 'runs',
        relationships: { workspace: { data: { type: 'workspaces', id: workspace.id } } },
      },
    });
    expect(run.status, run.text).toBe(201);
    const comment = await api.post(`/runs/${run.body.data.id}/comments`, {
      data: { type: 'comments', attributes: { body: 'looks good' } },
    });
    expect(comment.status, comment.text).toBe(201);
    // Deleted data is invisible over HTTP whether or not it is really gone, so the services' own
    // tables are checked too: each stored row by its id, and the organization's archives.
    const stored: Array<[service: string, table: string, id: string]> = [
      ['policy-sets', 'policy_sets', policySet.id],
      ['policy-sets', 'policy_sets', versioned.id],
      ['policy-sets', 'policy_set_versions', version],
      ['policy-sets', 'policies', policy.id],
      ['runs', 'runs', run.body.data.id],
      ['runs', 'comments', comment.body.data.id],
    ];
    const count = async (service: string, sql: string, param: string) =>
      (await t.system.services[service]!.db.query<{ n: number }>(sql, [param])).rows[0]!.n;
    const archives = () =>
      count('storage', 'SELECT count(*)::int AS n FROM objects WHERE organization = $1', org.name);
    const rowsLeft = async () => {
      let n = 0;
      for (const [service, table, id] of stored) {
        n += await count(service, `SELECT count(*)::int AS n FROM ${table} WHERE id = $1`, id);
      }
      return n;
    };
    expect(await archives()).toBeGreaterThan(0);
    expect(await rowsLeft()).toBe(stored.length);

    const paths = [
      `/policy-sets/${policySet.id}`,
      `/policy-sets/${versioned.id}`,
      `/policy-set-versions/${version}`,
      `/policies/${policy.id}`,
      `/workspaces/${workspace.id}`,
      `/runs/${run.body.data.id}`,
      `/runs/${run.body.data.id}/comments`,
      `/comments/${comment.body.data.id}`,
    ];
    for (const path of paths) expect((await t.admin.get(path)).status, path).toBe(200);

    expect((await t.admin.delete(`/admin/organizations/${org.name}`)).status).toBe(204);

    // Other services follow admin-orgs.organization-deleted; even a site admin finds nothing.
    for (const path of paths) {
      await waitFor(async () => (await t.admin.get(path)).status === 404).catch(() =>
        expect.fail(`${path} is still there`),
      );
    }
    await waitFor(async () => (await rowsLeft()) === 0 && (await archives()) === 0);

    // Nothing reappears in a new organization that takes the same name.
    const newcomer = await createUser(t, 'newcomer');
    await createOrganizationAs(newcomer.api, org.name);
    for (const list of ['policy-sets', 'policies', 'workspaces']) {
      const res = await newcomer.api.get(`/organizations/${org.name}/${list}`);
      expect(res.status, list).toBe(200);
      expect(res.body.data, list).toEqual([]);
    }
    for (const path of paths) expect((await newcomer.api.get(path)).status, path).toBe(404);
  });
});
