import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminUpdate } from './support/admin-organizations.js';
import { createOrganization, createPolicySet, createWorkspace, uniqueName } from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * Two races a user could hit by clicking twice: attaching a workspace to a set while
 * it is being deleted left the set pointing at a deleted workspace, and concurrent creates could
 * exceed the organization's workspace limit. Each is driven many times at once.
 */
let t: TestSystem;
let org: Awaited<ReturnType<typeof createOrganization>>;

beforeAll(async () => {
  t = await startTestSystem();
  org = await createOrganization(t, 'races');
});
afterAll(() => t?.stop());

describe('concurrent changes across services', () => {
  it('attaching and excluding workspaces while they are deleted leaves no link to a deleted workspace', async () => {
    const api = org.owner.api;
    const set = await createPolicySet(api, org.name);
    const ROUNDS = 3;
    const PER_ROUND = 8;
    for (let round = 0; round < ROUNDS; round++) {
      const workspaces = await Promise.all(
        Array.from({ length: PER_ROUND }, () => createWorkspace(api, org.name)),
      );
      const answers = await Promise.all(
        workspaces.flatMap((ws, i) => [
          api.delete(`/workspaces/${ws.id}`),
          api.post(
            `/policy-sets/${set.id}/relationships/${i % 2 === 0 ? 'workspaces' : 'workspace-exclusions'}`,
            { data: [{ type: 'workspaces', id: ws.id }] },
          ),
        ]),
      );
      // Each delete succeeds; each attach either came first (204) or found the workspace gone (422).
      for (const [i, res] of answers.entries()) {
        expect(i % 2 === 0 ? [204] : [204, 422], res.text).toContain(res.status);
      }
    }
    // Once the deletions are applied, the set refers to none of them.
    const settled = await waitFor(
      async () => {
        const data = (await api.get(`/policy-sets/${set.id}`)).body.data;
        const linked = [
          ...data.relationships.workspaces.data,
          ...data.relationships['workspace-exclusions'].data,
        ];
        return linked.length === 0 ? data : undefined;
      },
      15_000,
      200,
    ).catch(async () => (await api.get(`/policy-sets/${set.id}`)).body.data);
    expect(settled.relationships.workspaces.data).toEqual([]);
    expect(settled.relationships['workspace-exclusions'].data).toEqual([]);
    expect(settled.attributes['workspace-count']).toBe(0);
  });

  it('concurrent workspace creates never exceed the workspace limit', async () => {
    const limited = await createOrganization(t, 'limit');
    expect((await adminUpdate(t, limited.name, { 'workspace-limit': 3 })).status).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        limited.owner.api.post(`/organizations/${limited.name}/workspaces`, {
          data: { type: 'workspaces', attributes: { name: uniqueName('ws') } },
        }),
      ),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(3);
    expect(answers.filter((r) => r.status !== 201).map((r) => r.status)).toEqual(Array(9).fill(422));
    const listed = await limited.owner.api.get(`/organizations/${limited.name}/workspaces`);
    expect(listed.body.meta.pagination['total-count']).toBe(3);
  });
});
