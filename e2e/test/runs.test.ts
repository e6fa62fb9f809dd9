import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, createOrganization, createWorkspace } from './support/fixtures.js';
import { createRun, type InternalRunsApi, internalRunsApi, planJson } from './support/runs.js';
import { startTestSystem, type TestSystem } from './support/system.js';

let t: TestSystem;
let internal: InternalRunsApi;
let org: Awaited<ReturnType<typeof createOrganization>>;
beforeAll(async () => {
  t = await startTestSystem();
  internal = internalRunsApi(t);
  org = await createOrganization(t, 'runs');
});
afterAll(async () => {
  internal?.close();
  await t?.stop();
});

const NOT_FOUND = { errors: [{ status: '404', code: 'NOT_FOUND', title: 'not found' }] };
const runBody = (
  workspaceId: string | undefined,
  attributes: Record<string, unknown> = {},
  type = 'runs',
) => ({
  data: {
    type,
    attributes,
    relationships: {
      ...(workspaceId ? { workspace: { data: { type: 'workspaces', id: workspaceId } } } : {}),
      // Linkage this product does not use is ignored (configuration versions are checked:
      // configuration-versions.test.ts).
      variables: { data: [{ type: 'vars', id: 'var-ignored' }] },
    },
  },
});

describe('runs: create, show, list', () => {
  it('creates a pending run (201) with its linkage, and shows it identically', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const res = await org.owner.api.post('/runs', runBody(ws.id, { message: 'Triggered by CI' }));
    expect(res.status, res.text).toBe(201);
    const data = res.body.data;
    expect(data.id).toMatch(/^run-[0-9A-Za-z]{16}$/);
    expect(data).toMatchObject({
      type: 'runs',
      attributes: { status: 'pending', message: 'Triggered by CI', source: 'tfe-api', 'plan-only': false },
      relationships: {
        workspace: { data: { id: ws.id, type: 'workspaces' } },
        'configuration-version': { data: null },
        plan: { data: { id: expect.stringMatching(/^plan-/), type: 'plans' } },
        'policy-checks': { data: [] },
        comments: { data: [] },
        'run-events': { data: [{ id: expect.stringMatching(/^re-/), type: 'run-events' }] },
      },
      links: { self: `/api/v2/runs/${data.id}` },
    });
    expect(data.attributes['created-at']).toMatch(/\.\d{3}Z$/);
    expect(Object.keys(data.attributes['status-timestamps'])).toEqual(['pending-at']);
    const show = await org.owner.api.get(`/runs/${data.id}`);
    expect(show.status).toBe(200);
    expect(show.body.data).toEqual(data);
  });

  it('includes the workspace on request, exactly as the workspace endpoint shows it', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const run = await createRun(org.owner.api, ws.id);
    const res = await org.owner.api.get(`/runs/${run.id}?include=workspace`);
    expect(res.status).toBe(200);
    expect(res.body.included).toEqual([(await org.owner.api.get(`/workspaces/${ws.id}`)).body.data]);
    const bad = await org.owner.api.get(`/runs/${run.id}?include=plan`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].detail).toContain('include parameter');
  });

  it('lists a workspace runs newest first with pagination', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await createRun(org.owner.api, ws.id)).id);
    const page1 = await org.owner.api.get(`/workspaces/${ws.id}/runs?page[size]=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[1]]);
    expect(page1.body.meta.pagination).toMatchObject({
      'current-page': 1,
      'next-page': 2,
      'total-pages': 2,
      'total-count': 3,
    });
    const page2 = await org.owner.api.get(page1.body.links.next);
    expect(page2.body.data.map((r: { id: string }) => r.id)).toEqual([ids[0]]);
    const none = await org.owner.api.get(
      `/workspaces/${(await createWorkspace(org.owner.api, org.name)).id}/runs`,
    );
    expect(none.body.data).toEqual([]);
  });
});

describe('runs: errors and authorization', () => {
  it('rejects bodies without a workspace, with a wrong linkage type or a wrong data.type (422)', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const missing = await org.owner.api.post('/runs', runBody(undefined));
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0]).toMatchObject({
      status: '422',
      source: { pointer: '/data/relationships/workspace' },
    });
    const wrongLinkage = await org.owner.api.post('/runs', {
      data: { type: 'runs', relationships: { workspace: { data: { type: 'projects', id: ws.id } } } },
    });
    expect(wrongLinkage.status).toBe(422);
    expect(wrongLinkage.body.errors[0].source).toEqual({
      pointer: '/data/relationships/workspace/data/type',
    });
    const wrongType = await org.owner.api.post('/runs', runBody(ws.id, {}, 'workspaces'));
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.errors[0].source).toEqual({ pointer: '/data/type' });
    const badMessage = await org.owner.api.post('/runs', runBody(ws.id, { message: 7 }));
    expect(badMessage.status).toBe(422);
    expect(badMessage.body.errors[0].source).toEqual({ pointer: '/data/attributes/message' });
  });

  it('answers 401 without a token and 404 for unknown or hidden workspaces and runs', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const run = await createRun(org.owner.api, ws.id);
    expect((await t.anonymous.post('/runs', runBody(ws.id))).status).toBe(401);
    expect((await t.anonymous.get(`/runs/${run.id}`)).status).toBe(401);
    expect((await org.owner.api.post('/runs', runBody('ws-0000000000000000'))).body).toEqual(NOT_FOUND);
    expect((await org.owner.api.get('/runs/run-0000000000000000')).body).toEqual(NOT_FOUND);
    const stranger = (await createOrganization(t, 'runsx')).owner;
    expect((await stranger.api.post('/runs', runBody(ws.id))).status).toBe(404);
    expect((await stranger.api.get(`/runs/${run.id}`)).status).toBe(404);
    expect((await stranger.api.get(`/workspaces/${ws.id}/runs`)).status).toBe(404);
  });

  it('creating needs manage-workspaces, reading needs read-runs', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const reader = await createMember(t, org, ['read-runs']);
    const operator = await createMember(t, org, ['manage-workspaces']);
    expect((await reader.api.post('/runs', runBody(ws.id))).status).toBe(404);
    const created = await operator.api.post('/runs', runBody(ws.id));
    expect(created.status, created.text).toBe(201);
    expect((await operator.api.get(`/runs/${created.body.data.id}`)).status).toBe(404);
    const read = (await reader.api.get(`/runs/${created.body.data.id}`)).body.data;
    expect(read.relationships).toEqual(created.body.data.relationships);
    // Permissions are the caller's own: the creator may not comment, the reader may.
    const none = {
      'can-apply': false,
      'can-cancel': false,
      'can-comment': false,
      'can-discard': false,
      'can-force-cancel': false,
      'can-force-execute': false,
    };
    const control = { 'can-cancel': true, 'can-discard': true, 'can-force-cancel': true };
    expect(created.body.data.attributes.permissions).toEqual({ ...none, ...control });
    expect(read.attributes.permissions).toEqual({ ...none, 'can-comment': true });
    expect((await reader.api.get(`/workspaces/${ws.id}/runs`)).body.data).toHaveLength(1);
  });
});

describe('runs: lifecycle reported by an executor', () => {
  it('a plan without applicable policy sets leaves the run planned, without checks', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const run = await createRun(org.owner.api, ws.id);
    const res = await internal.executor.ReportPlanFinished({
      runId: run.id,
      planJson: planJson(['aws_instance']),
    });
    expect(res.run!.status).toBe('RUN_STATUS_PLANNED');
    const show = (await org.owner.api.get(`/runs/${run.id}`)).body.data;
    expect(show.attributes.status).toBe('planned');
    expect(Object.keys(show.attributes['status-timestamps'])).toEqual(['pending-at', 'planned-at']);
    expect(show.relationships['policy-checks'].data).toEqual([]);
  });

  it('errored and canceled runs report their status and are no longer cancelable', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const a = await createRun(org.owner.api, ws.id);
    const b = await createRun(org.owner.api, ws.id);
    await internal.executor.ReportRunErrored({ runId: a.id, message: 'provider crashed' });
    await internal.executor.ReportRunCanceled({ runId: b.id });
    const shownA = (await org.owner.api.get(`/runs/${a.id}`)).body.data;
    expect(shownA.attributes).toMatchObject({ status: 'errored', actions: { 'is-cancelable': false } });
    expect(shownA.attributes['status-timestamps']).toHaveProperty('errored-at');
    expect((await org.owner.api.get(`/runs/${b.id}`)).body.data.attributes.status).toBe('canceled');
    const events = await org.owner.api.get(`/runs/${a.id}/run-events`);
    expect(events.body.data.map((e: { attributes: { action: string } }) => e.attributes.action)).toEqual([
      'created',
      'errored',
    ]);
    expect(events.body.data[1].attributes.description).toBe('provider crashed');
  });

  it('deleting the workspace or the organization removes its runs and comments', async () => {
    const doomed = await createOrganization(t, 'runsdel');
    const ws1 = await createWorkspace(doomed.owner.api, doomed.name);
    const ws2 = await createWorkspace(doomed.owner.api, doomed.name);
    const r1 = await createRun(doomed.owner.api, ws1.id);
    const r2 = await createRun(doomed.owner.api, ws2.id);
    const comment = (
      await doomed.owner.api.post(`/runs/${r1.id}/comments`, {
        data: { type: 'comments', attributes: { body: 'bye' } },
      })
    ).body.data;
    expect((await doomed.owner.api.delete(`/workspaces/${ws1.id}`)).status).toBe(204);
    // Removal follows the workspace-deleted event.
    await waitFor(async () => (await t.admin.get(`/runs/${r1.id}`)).status === 404);
    expect((await t.admin.get(`/comments/${comment.id}`)).status).toBe(404);
    expect((await t.admin.get(`/runs/${r2.id}`)).status).toBe(200);
    expect((await doomed.owner.api.delete(`/organizations/${doomed.name}`)).status).toBe(204);
    await waitFor(async () => (await t.admin.get(`/runs/${r2.id}`)).status === 404);
  });
});
