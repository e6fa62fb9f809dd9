import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMember,
  createOrganization,
  createPolicy,
  createPolicySet,
  createProject,
  createWorkspace,
} from './support/fixtures.js';
import { createRun, type InternalRunsApi, internalRunsApi, planJson } from './support/runs.js';
import type { ApiClient } from './support/api.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * Project exclusions of policy sets (upstream's `project-exclusions`): the relationship
 * endpoints, the relationship and `include=project_exclusions`, and enforcement: a run in a
 * workspace of an excluded project gets no check from that set.
 */

let t: TestSystem;
let internal: InternalRunsApi;
let org: Awaited<ReturnType<typeof createOrganization>>;
beforeAll(async () => {
  t = await startTestSystem();
  internal = internalRunsApi(t);
  org = await createOrganization(t, 'pexcl');
});
afterAll(async () => {
  internal?.close();
  await t?.stop();
});

const NOT_FOUND = { errors: [{ status: '404', code: 'NOT_FOUND', title: 'not found' }] };
const ids = (type: string, list: string[]) => ({ data: list.map((id) => ({ type, id })) });
const path = (setId: string) => `/policy-sets/${setId}/relationships/project-exclusions`;

async function change(method: 'POST' | 'DELETE', setId: string, body: unknown) {
  const res = await org.owner.api.request(method, path(setId), body);
  expect(res.status, res.text).toBe(204);
  expect(res.text).toBe('');
}

/** What a finished plan of a new run in `workspaceId` led to: its status and its checks' sets. */
async function enforcedOn(api: ApiClient, workspaceId: string) {
  const run = await createRun(api, workspaceId);
  await internal.executor.ReportPlanFinished({ runId: run.id, planJson: planJson(['aws_s3_bucket']) });
  const shown = (await api.get(`/runs/${run.id}`)).body.data;
  const checks = shown.relationships['policy-checks'].data as Array<{ id: string }>;
  return { status: shown.attributes.status as string, checks: checks.length };
}

describe('project exclusions of a policy set', () => {
  it('adds and removes excluded projects; the set shows them and includes them', async () => {
    const [p1, p2] = [
      await createProject(org.owner.api, org.name),
      await createProject(org.owner.api, org.name),
    ];
    const set = await createPolicySet(org.owner.api, org.name, { global: true });
    expect(set.relationships['project-exclusions']).toEqual({ data: [] });
    await change('POST', set.id, ids('projects', [p1.id, p2.id, p1.id]));
    const shown = await org.owner.api.get(`/policy-sets/${set.id}?include=project_exclusions`);
    expect(shown.body.data.relationships['project-exclusions']).toEqual(ids('projects', [p1.id, p2.id]));
    expect(shown.body.included.map((r: { id: string; type: string }) => [r.type, r.id])).toEqual([
      ['projects', p1.id],
      ['projects', p2.id],
    ]);
    // Exclusions are not attachments.
    expect(shown.body.data.attributes['project-count']).toBe(0);
    const listed = await org.owner.api.get(
      `/organizations/${org.name}/policy-sets?include=project-exclusions`,
    );
    expect(listed.status).toBe(200);
    await change('DELETE', set.id, ids('projects', [p1.id, 'prj-notamember0000']));
    expect(
      (await org.owner.api.get(`/policy-sets/${set.id}`)).body.data.relationships['project-exclusions'],
    ).toEqual(ids('projects', [p2.id]));
  });

  it('refuses unknown projects, projects of another organization and wrong types (422), changing nothing', async () => {
    const set = await createPolicySet(org.owner.api, org.name);
    const other = await createOrganization(t, 'pexother');
    const foreign = await createProject(other.owner.api, other.name);
    for (const [body, pointer] of [
      [ids('projects', ['prj-doesnotexist0000']), '/data'],
      [ids('projects', [foreign.id]), '/data'],
      [ids('workspaces', ['ws-1']), '/data/0/type'],
    ] as const) {
      const res = await org.owner.api.post(path(set.id), body);
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors[0].source.pointer).toBe(pointer);
    }
    expect(
      (await org.owner.api.get(`/policy-sets/${set.id}`)).body.data.relationships['project-exclusions'],
    ).toEqual({
      data: [],
    });
  });

  it('is 404 for outsiders and members without manage-policies, before their body is judged', async () => {
    const set = await createPolicySet(org.owner.api, org.name);
    const prj = await createProject(org.owner.api, org.name);
    const outsider = await createOrganization(t, 'pexout');
    const reader = await createMember(t, org, ['read-workspaces']);
    for (const api of [outsider.owner.api, reader.api]) {
      for (const method of ['POST', 'DELETE']) {
        for (const body of [ids('projects', [prj.id]), { data: 'nope' }]) {
          const res = await api.request(method, path(set.id), body);
          expect(res.status, res.text).toBe(404);
          expect(res.body).toEqual(NOT_FOUND);
        }
      }
    }
  });

  it('a set excluding a project is not enforced on its workspaces, whichever way it applies', async () => {
    // Its own organization: a set of another test here (global, no policies) would apply too.
    const org = await createOrganization(t, 'pexenf');
    const excludedProject = await createProject(org.owner.api, org.name);
    const otherProject = await createProject(org.owner.api, org.name);
    const policy = await createPolicy(org.owner.api, org.name, { 'enforcement-level': 'advisory' });
    // Attached through the project and (below) to each workspace directly: the exclusion still wins.
    const set = await createPolicySet(
      org.owner.api,
      org.name,
      {},
      { policies: [policy.id], projects: [excludedProject.id, otherProject.id] },
    );
    /** A new workspace of `project`, also attached to the set directly, and what its first run's plan got. */
    const runIn = async (project: { id: string }) => {
      const ws = await createWorkspace(org.owner.api, org.name, {}, project.id);
      const attach = await org.owner.api.post(
        `/policy-sets/${set.id}/relationships/workspaces`,
        ids('workspaces', [ws.id]),
      );
      expect(attach.status).toBe(204);
      return enforcedOn(org.owner.api, ws.id);
    };
    expect(await runIn(excludedProject)).toEqual({ status: 'policy_checking', checks: 1 });

    const exclude = await org.owner.api.post(path(set.id), ids('projects', [excludedProject.id]));
    expect(exclude.status).toBe(204);
    expect(await runIn(excludedProject)).toEqual({ status: 'planned', checks: 0 });
    expect(await runIn(otherProject)).toEqual({ status: 'policy_checking', checks: 1 });

    const include = await org.owner.api.request(
      'DELETE',
      path(set.id),
      ids('projects', [excludedProject.id]),
    );
    expect(include.status).toBe(204);
    expect(await runIn(excludedProject)).toEqual({ status: 'policy_checking', checks: 1 });
  });

  it('a global set excluding a project is not enforced there; deleting the project drops the exclusion', async () => {
    const o = await createOrganization(t, 'pexglob');
    const prj = await createProject(o.owner.api, o.name);
    const ws = await createWorkspace(o.owner.api, o.name, {}, prj.id);
    const policy = await createPolicy(o.owner.api, o.name, { 'enforcement-level': 'advisory' });
    const set = await createPolicySet(o.owner.api, o.name, { global: true }, { policies: [policy.id] });
    const res = await o.owner.api.post(path(set.id), ids('projects', [prj.id]));
    expect(res.status).toBe(204);
    const run = await createRun(o.owner.api, ws.id);
    await internal.executor.ReportPlanFinished({ runId: run.id, planJson: planJson(['aws_s3_bucket']) });
    expect((await o.owner.api.get(`/runs/${run.id}`)).body.data.attributes.status).toBe('planned');

    expect((await o.owner.api.delete(`/workspaces/${ws.id}`)).status).toBe(204);
    expect((await o.owner.api.delete(`/projects/${prj.id}`)).status).toBe(204);
    const after = await waitFor(async () => {
      const s = (await o.owner.api.get(`/policy-sets/${set.id}`)).body.data;
      return s.relationships['project-exclusions'].data.length === 0 ? s : undefined;
    });
    expect(after.relationships['project-exclusions']).toEqual({ data: [] });
  });
});
