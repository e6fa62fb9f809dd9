import * as grpc from '@grpc/grpc-js';
import { readServiceError } from '@policyhub/grpc-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member, owner, type RunsHarness, startRunsHarness } from './support/harness.js';

const rejection = async (p: Promise<unknown>) =>
  readServiceError(
    await p.then(
      () => expect.fail('expected a rejection'),
      (e) => e,
    ),
  );

describe('runs service: comments', () => {
  let h: RunsHarness;
  let runId: string;
  beforeAll(async () => {
    h = await startRunsHarness();
    h.workspaces.add('ws-1', 'acme');
    runId = (await h.runs.CreateRun({ workspaceId: 'ws-1' }, owner('acme'))).run!.id;
  });
  afterAll(() => h?.stop());

  it('a reader comments on a fresh run; the comment is a run event and part of the run', async () => {
    const reader = member('acme', ['read-runs'], 'user-reader');
    const { comment } = await h.comments.CreateComment({ runId, body: 'Looks good\nto me' }, reader);
    expect(comment).toMatchObject({ runId, body: 'Looks good\nto me', authorUserId: 'user-reader' });
    expect(comment!.id).toMatch(/^wsc-/);
    expect(comment!.runEventId).toMatch(/^re-/);
    const { runEvent } = await h.runs.GetRunEvent({ id: comment!.runEventId }, reader);
    expect(runEvent).toMatchObject({
      action: 'RUN_EVENT_ACTION_COMMENTED',
      commentId: comment!.id,
      actorUserId: 'user-reader',
      runId,
    });
    const { run } = await h.runs.GetRun({ id: runId }, reader);
    expect(run!.commentIds).toContain(comment!.id);
    expect(run!.runEventIds).toContain(comment!.runEventId);
    expect((await h.comments.GetComment({ id: comment!.id }, reader)).comment).toEqual(comment);
  });

  it('lists comments oldest first with pagination; a run without comments lists none', async () => {
    const other = (await h.runs.CreateRun({ workspaceId: 'ws-1' }, owner('acme'))).run!.id;
    expect((await h.comments.ListRunComments({ runId: other }, owner('acme'))).comments).toEqual([]);
    await h.comments.CreateComment({ runId: other, body: 'first' }, owner('acme'));
    await h.comments.CreateComment({ runId: other, body: 'second' }, owner('acme'));
    const all = await h.comments.ListRunComments({ runId: other }, owner('acme'));
    expect(all.comments.map((c) => c.body)).toEqual(['first', 'second']);
    expect(all.page).toMatchObject({ currentPage: 1, pageSize: 20, totalCount: 2, totalPages: 1 });
    const second = await h.comments.ListRunComments(
      { runId: other, page: { number: 2, size: 1 } },
      owner('acme'),
    );
    expect(second.comments.map((c) => c.body)).toEqual(['second']);
  });

  it('a blank body is rejected with a pointer and nothing is stored', async () => {
    for (const body of ['', '  \n\t ']) {
      const res = await rejection(h.comments.CreateComment({ runId, body }, owner('acme')));
      expect(res).toMatchObject({ status: grpc.status.INVALID_ARGUMENT, code: 'RUNS_COMMENT_BODY_BLANK' });
      expect(res.items[0]).toMatchObject({ field: 'body', detail: "Body can't be blank" });
    }
    const { run } = await h.runs.GetRun({ id: runId }, owner('acme'));
    expect(run!.commentIds).toHaveLength(1);
  });

  it('comments are invisible without read-runs in the run organization', async () => {
    const { comment } = await h.comments.CreateComment({ runId, body: 'secret' }, owner('acme'));
    for (const caller of [member('acme', ['manage-policies']), owner('globex')]) {
      expect((await rejection(h.comments.GetComment({ id: comment!.id }, caller))).status).toBe(
        grpc.status.NOT_FOUND,
      );
      expect((await rejection(h.comments.ListRunComments({ runId }, caller))).status).toBe(
        grpc.status.NOT_FOUND,
      );
      expect((await rejection(h.comments.CreateComment({ runId, body: 'x' }, caller))).status).toBe(
        grpc.status.NOT_FOUND,
      );
    }
    expect(
      (await rejection(h.comments.CreateComment({ runId: 'run-missing', body: 'x' }, owner('acme')))).status,
    ).toBe(grpc.status.NOT_FOUND);
  });
});
