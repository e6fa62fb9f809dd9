import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, createOrganization, createWorkspace } from './support/fixtures.js';
import { createRun, type InternalRunsApi, internalRunsApi } from './support/runs.js';
import { startTestSystem, type TestSystem } from './support/system.js';

let t: TestSystem;
let internal: InternalRunsApi;
let org: Awaited<ReturnType<typeof createOrganization>>;
let runId: string;
beforeAll(async () => {
  t = await startTestSystem();
  internal = internalRunsApi(t);
  org = await createOrganization(t, 'cmt');
  const ws = await createWorkspace(org.owner.api, org.name);
  runId = (await createRun(org.owner.api, ws.id)).id;
});
afterAll(async () => {
  internal?.close();
  await t?.stop();
});

const NOT_FOUND = { errors: [{ status: '404', code: 'NOT_FOUND', title: 'not found' }] };
const UNAUTHORIZED = { errors: [{ status: '401', code: 'UNAUTHORIZED', title: 'unauthorized' }] };
const commentBody = (body: unknown, type = 'comments') => ({ data: { type, attributes: { body } } });

describe('comments: create, show, list', () => {
  it('creates a comment on a fresh run (201, body echoed exactly) and shows it identically', async () => {
    const body = '  Approved after review.\n\n- checked the plan ✓  ';
    const res = await org.owner.api.post(`/runs/${runId}/comments`, commentBody(body));
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get('content-type')).toContain('application/vnd.api+json');
    const data = res.body.data;
    expect(data.id).toMatch(/^wsc-[0-9A-Za-z]{16}$/);
    const eventId = data.relationships['run-event'].data.id;
    expect(eventId).toMatch(/^re-[0-9A-Za-z]{16}$/);
    expect(data).toEqual({
      id: data.id,
      type: 'comments',
      attributes: { body },
      relationships: {
        'run-event': {
          data: { id: eventId, type: 'run-events' },
          links: { related: `/api/v2/run-events/${eventId}` },
        },
      },
      links: { self: `/api/v2/comments/${data.id}` },
    });
    const show = await org.owner.api.get(`/comments/${data.id}`);
    expect(show.status).toBe(200);
    expect(show.body.data).toEqual(data);
  });

  it('records each comment as a run event reachable through its link, and on the run', async () => {
    const res = await org.owner.api.post(`/runs/${runId}/comments`, commentBody('see the event'));
    const related = res.body.data.relationships['run-event'].links.related as string;
    const event = await org.owner.api.get(related);
    expect(event.status, event.text).toBe(200);
    expect(event.body.data).toMatchObject({
      type: 'run-events',
      attributes: { action: 'commented' },
      relationships: {
        comment: { data: { id: res.body.data.id, type: 'comments' } },
        actor: { data: { id: org.owner.id, type: 'users' } },
        run: { data: { id: runId, type: 'runs' } },
      },
    });
    const run = await org.owner.api.get(`/runs/${runId}`);
    expect(run.body.data.relationships.comments.data).toContainEqual({
      id: res.body.data.id,
      type: 'comments',
    });
    expect(run.body.data.relationships['run-events'].data).toContainEqual({
      id: event.body.data.id,
      type: 'run-events',
    });
  });

  it('lists a run without comments as 200 with an empty page', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const empty = await createRun(org.owner.api, ws.id);
    const res = await org.owner.api.get(`/runs/${empty.id}/comments`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.meta.pagination).toMatchObject({ 'current-page': 1, 'total-count': 0, 'total-pages': 1 });
  });

  it('lists exactly the comments created, oldest first, paginated', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const run = await createRun(org.owner.api, ws.id);
    const first = await org.owner.api.post(`/runs/${run.id}/comments`, commentBody('first'));
    const second = await org.owner.api.post(`/runs/${run.id}/comments`, commentBody('second'));
    const all = await org.owner.api.get(`/runs/${run.id}/comments`);
    expect(all.status).toBe(200);
    expect(all.body.data).toEqual([first.body.data, second.body.data]);
    expect(all.body.meta.pagination).toMatchObject({ 'current-page': 1, 'page-size': 20, 'total-count': 2 });
    const page2 = await org.owner.api.get(`/runs/${run.id}/comments?page%5Bnumber%5D=2&page%5Bsize%5D=1`);
    expect(page2.body.data.map((c: { attributes: { body: string } }) => c.attributes.body)).toEqual([
      'second',
    ]);
    expect(page2.body.meta.pagination).toMatchObject({
      'current-page': 2,
      'prev-page': 1,
      'next-page': null,
      'total-pages': 2,
    });
    expect(page2.body.links.self).toContain(`/api/v2/runs/${run.id}/comments?`);
    const past = await org.owner.api.get(`/runs/${run.id}/comments?page[number]=99`);
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual([]);
    expect(past.body.meta.pagination).toMatchObject({ 'current-page': 99, 'total-count': 2 });
    expect((await org.owner.api.get(`/runs/${run.id}/comments?page[size]=101`)).status).toBe(422);
  });

  it('works on runs in any state, also a canceled one', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const run = await createRun(org.owner.api, ws.id);
    await internal.executor.ReportRunCanceled({ runId: run.id });
    expect((await org.owner.api.get(`/runs/${run.id}`)).body.data.attributes.status).toBe('canceled');
    const res = await org.owner.api.post(`/runs/${run.id}/comments`, commentBody('post mortem'));
    expect(res.status, res.text).toBe(201);
  });
});

describe('comments: errors', () => {
  const count = async () =>
    (await org.owner.api.get(`/runs/${runId}/comments?page[size]=100`)).body.meta.pagination['total-count'];

  it('rejects a blank or missing body with 422 at /data/attributes/body and stores nothing', async () => {
    const before = await count();
    for (const attributes of [{ body: '' }, { body: '  \n\t' }, {}, { body: null }]) {
      const res = await org.owner.api.post(`/runs/${runId}/comments`, {
        data: { type: 'comments', attributes },
      });
      expect(res.status, JSON.stringify(attributes)).toBe(422);
      expect(res.body.errors[0]).toEqual({
        status: '422',
        // Absent or null: the gateway's reader; blank text: runs.
        code: typeof attributes.body === 'string' ? 'RUNS_COMMENT_BODY_BLANK' : 'GATEWAY_INVALID_BODY',
        title: 'invalid attribute',
        detail: "Body can't be blank",
        source: { pointer: '/data/attributes/body' },
      });
    }
    const wrongType = await org.owner.api.post(`/runs/${runId}/comments`, commentBody(42));
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.errors[0].source).toEqual({ pointer: '/data/attributes/body' });
    expect(await count()).toBe(before);
  });

  it('requires data.type comments (422 at /data/type) and a JSON body (400)', async () => {
    for (const type of ['runs', '', undefined]) {
      const res = await org.owner.api.post(`/runs/${runId}/comments`, {
        data: { type, attributes: { body: 'x' } },
      });
      expect(res.status).toBe(422);
      expect(res.body.errors[0]).toMatchObject({ status: '422', source: { pointer: '/data/type' } });
    }
    const noData = await org.owner.api.post(`/runs/${runId}/comments`, { body: 'x' });
    expect(noData.status).toBe(422);
    expect(noData.body.errors[0].source).toEqual({ pointer: '/data' });
    const malformed = await org.owner.api.post(`/runs/${runId}/comments`, '{"data": ');
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0]).toMatchObject({ status: '400' });
  });

  it('answers 401 without a valid token', async () => {
    for (const res of [
      await t.anonymous.get(`/runs/${runId}/comments`),
      await t.anonymous.post(`/runs/${runId}/comments`, commentBody('x')),
      await t.client('not-a-token').get(`/runs/${runId}/comments`),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNAUTHORIZED);
    }
  });

  it('answers 404 for unknown runs and comments, even with a bad body', async () => {
    expect((await org.owner.api.get('/runs/run-0000000000000000/comments')).body).toEqual(NOT_FOUND);
    expect((await org.owner.api.get('/comments/wsc-0000000000000000')).status).toBe(404);
    const bad = await org.owner.api.post('/runs/run-0000000000000000/comments', commentBody(''));
    expect(bad.status).toBe(404);
    expect(bad.body).toEqual(NOT_FOUND);
  });

  it('hides comments from other organizations and from members without read-runs (404)', async () => {
    const comment = (await org.owner.api.post(`/runs/${runId}/comments`, commentBody('internal'))).body.data;
    const stranger = (await createOrganization(t, 'cmtx')).owner;
    const noReads = await createMember(t, org, ['manage-policies', 'read-workspaces']);
    for (const user of [stranger, noReads]) {
      expect((await user.api.get(`/comments/${comment.id}`)).body).toEqual(NOT_FOUND);
      expect((await user.api.get(`/runs/${runId}/comments`)).status).toBe(404);
      expect((await user.api.post(`/runs/${runId}/comments`, commentBody('x'))).status).toBe(404);
      expect((await user.api.get(comment.relationships['run-event'].links.related)).status).toBe(404);
    }
  });

  it('lets a member with read-runs read and comment', async () => {
    const reader = await createMember(t, org, ['read-runs']);
    const res = await reader.api.post(`/runs/${runId}/comments`, commentBody('from a reader'));
    expect(res.status, res.text).toBe(201);
    expect((await reader.api.get(`/comments/${res.body.data.id}`)).body.data).toEqual(res.body.data);
  });
});
