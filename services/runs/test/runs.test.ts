import { readFile } from 'node:fs/promises';
import * as grpc from '@grpc/grpc-js';
import { timestampToIso } from '@policyhub/contracts';
import { readServiceError } from '@policyhub/grpc-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policySet } from './support/fakes.js';
import { member, owner, plan, type RunsHarness, startRunsHarness } from './support/harness.js';

const rejection = async (p: Promise<unknown>) =>
  readServiceError(
    await p.then(
      () => expect.fail('expected a rejection'),
      (e) => e,
    ),
  );

describe('runs service: runs and the executor API', () => {
  let h: RunsHarness;
  beforeAll(async () => {
    h = await startRunsHarness();
    h.workspaces.add('ws-plain', 'acme');
    h.workspaces.add('ws-guarded', 'acme');
    h.workspaces.add('ws-other', 'globex');
    h.policySets.byWorkspace.set('ws-guarded', [policySet('polset-1', [['no-s3', 'hard-mandatory']])]);
  });
  afterAll(() => h?.stop());

  it('creates a pending run with a creation event and reads it back identically', async () => {
    const { run } = await h.runs.CreateRun({ workspaceId: 'ws-plain', message: 'hello' }, owner('acme'));
    expect(run).toMatchObject({
      organization: 'acme',
      workspaceId: 'ws-plain',
      message: 'hello',
      status: 'RUN_STATUS_PENDING',
      policyCheckIds: [],
      commentIds: [],
      hasPlan: false,
      isCancelable: true,
    });
    expect(run!.id).toMatch(/^run-[0-9A-Za-z]{16}$/);
    expect(Object.keys(run!.statusTimestamps)).toEqual(['pending']);
    expect(run!.runEventIds).toHaveLength(1);
    const { run: again } = await h.runs.GetRun({ id: run!.id }, owner('acme'));
    expect(again).toEqual(run);
  });

  it('creating a run needs manage-workspaces; reading needs read-runs; other organizations see nothing', async () => {
    const reader = member('acme', ['read-runs']);
    expect((await rejection(h.runs.CreateRun({ workspaceId: 'ws-plain' }, reader))).status).toBe(
      grpc.status.NOT_FOUND,
    );
    expect((await rejection(h.runs.CreateRun({ workspaceId: 'ws-missing' }, owner('acme')))).status).toBe(
      grpc.status.NOT_FOUND,
    );
    const { run } = await h.runs.CreateRun(
      { workspaceId: 'ws-plain' },
      member('acme', ['manage-workspaces']),
    );
    expect((await h.runs.GetRun({ id: run!.id }, reader)).run!.id).toBe(run!.id);
    for (const caller of [member('acme', ['manage-workspaces']), owner('globex')]) {
      expect((await rejection(h.runs.GetRun({ id: run!.id }, caller))).status).toBe(grpc.status.NOT_FOUND);
    }
    expect((await rejection(h.runs.GetRun({ id: run!.id }))).status).toBe(grpc.status.NOT_FOUND);
  });

  it('lists a workspace runs newest first, paginated, and only for readers', async () => {
    h.workspaces.add('ws-list', 'acme');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await h.runs.CreateRun({ workspaceId: 'ws-list' }, owner('acme'))).run!.id);
    const first = await h.runs.ListWorkspaceRuns(
      { workspaceId: 'ws-list', page: { number: 1, size: 2 } },
      owner('acme'),
    );
    expect(first.runs.map((r) => r.id)).toEqual([ids[2], ids[1]]);
    expect(first.page).toMatchObject({ currentPage: 1, totalPages: 2, totalCount: 3 });
    const past = await h.runs.ListWorkspaceRuns(
      { workspaceId: 'ws-list', page: { number: 9, size: 2 } },
      owner('acme'),
    );
    expect(past.runs).toEqual([]);
    expect(past.page).toMatchObject({ currentPage: 9, totalCount: 3 });
    expect(
      (await rejection(h.runs.ListWorkspaceRuns({ workspaceId: 'ws-list' }, owner('globex')))).status,
    ).toBe(grpc.status.NOT_FOUND);
  });

  it('a finished plan without applicable kind_a sets moves the run to planned and stores the plan', async () => {
    const { run } = await h.runs.CreateRun({ workspaceId: 'ws-plain' }, owner('acme'));
    const res = await h.executor.ReportPlanFinished({ runId: run!.id, planJson: plan(['aws_instance']) });
    expect(res.run).toMatchObject({ status: 'RUN_STATUS_PLANNED', hasPlan: true, policyCheckIds: [] });
    expect(Object.keys(res.run!.statusTimestamps)).toEqual(['pending', 'planned']);
    expect(JSON.parse(h.objects.objects.get(`acme/runs/${run!.id}/plan.json`)!.toString())).toMatchObject({
      resource_changes: [{ type: 'aws_instance' }],
    });
  });

  it('a finished plan with applicable sets creates exactly one queued check, also when reported twice', async () => {
    const { run } = await h.runs.CreateRun({ workspaceId: 'ws-guarded' }, owner('acme'));
    const [a, b] = await Promise.all([
      h.executor.ReportPlanFinished({ runId: run!.id, planJson: plan() }),
      h.executor.ReportPlanFinished({ runId: run!.id, planJson: plan() }),
    ]);
    const again = await h.executor.ReportPlanFinished({ runId: run!.id, planJson: plan() });
    for (const r of [a.run!, b.run!, again.run!]) {
      expect(r.status).toBe('RUN_STATUS_POLICY_CHECKING');
      expect(r.policyCheckIds).toHaveLength(1);
    }
    const { policyCheck } = await h.checks.GetPolicyCheck(
      { id: again.run!.policyCheckIds[0] },
      owner('acme'),
    );
    expect(policyCheck).toMatchObject({
      status: 'POLICY_CHECK_STATUS_QUEUED',
      scope: 'POLICY_CHECK_SCOPE_ORGANIZATION',
      runId: run!.id,
      result: null,
    });
    expect(Object.keys(policyCheck!.statusTimestamps)).toEqual(['queued']);
  });

  it('rejects a plan that is not a JSON object, and plans of runs that are no longer pending', async () => {
    const { run } = await h.runs.CreateRun({ workspaceId: 'ws-plain' }, owner('acme'));
    const bad = await rejection(
      h.executor.ReportPlanFinished({ runId: run!.id, planJson: Buffer.from('[1]') }),
    );
    expect(bad).toMatchObject({ status: grpc.status.INVALID_ARGUMENT, code: 'RUNS_INVALID_PLAN_JSON' });
    expect((await h.executor.ReportRunCanceled({ runId: run!.id })).run).toMatchObject({
      status: 'RUN_STATUS_CANCELED',
      isCancelable: false,
    });
    const late = await rejection(h.executor.ReportPlanFinished({ runId: run!.id, planJson: plan() }));
    expect(late).toMatchObject({ status: grpc.status.FAILED_PRECONDITION, code: 'RUNS_RUN_STATE_CONFLICT' });
    const missing = await rejection(h.executor.ReportPlanFinished({ runId: 'run-nope', planJson: plan() }));
    expect(missing.status).toBe(grpc.status.NOT_FOUND);
  });

  it('takes a streamed plan as the run id, then its chunks; a stream out of that order changes nothing', async () => {
    const report = (messages: Array<{ runId?: string; data?: Buffer }>) =>
      new Promise<unknown>((resolve, reject) => {
        const call = h.executor.raw.ReportPlanFinishedStream(h.executor.metadata(), (err, res) =>
          err ? reject(err) : resolve(res),
        );
        for (const message of messages) call.write(message);
        call.end();
      });
    const { run } = await h.runs.CreateRun({ workspaceId: 'ws-plain' }, owner('acme'));
    const document = plan(['aws_instance']);

    const dataFirst = await rejection(report([{ data: document }]));
    expect(dataFirst).toMatchObject({
      status: grpc.status.INVALID_ARGUMENT,
      code: 'RUNS_INVALID_STREAM',
      items: [expect.objectContaining({ field: '/run_id', detail: 'the first message must carry run_id' })],
    });
    const runIdAgain = await rejection(report([{ runId: run!.id }, { runId: run!.id }]));
    expect(runIdAgain).toMatchObject({
      code: 'RUNS_INVALID_STREAM',
      items: [expect.objectContaining({ field: 'data', detail: 'only the first message may carry run_id' })],
    });
    expect((await h.runs.GetRun({ id: run!.id }, owner('acme'))).run).toMatchObject({
      status: 'RUN_STATUS_PENDING',
      hasPlan: false,
    });

    const half = Math.floor(document.length / 2);
    const res = (await report([
      { runId: run!.id },
      { data: document.subarray(0, half) },
      { data: document.subarray(half) },
    ])) as { run: { status: string; hasPlan: boolean } };
    expect(res.run).toMatchObject({ status: 'RUN_STATUS_PLANNED', hasPlan: true });
    expect(h.objects.objects.get(`acme/runs/${run!.id}/plan.json`)).toEqual(document);
  });

  it('an errored or canceled run cancels its queued check; repeating the report changes nothing', async () => {
    const { run } = await h.runs.CreateRun({ workspaceId: 'ws-guarded' }, owner('acme'));
    const planned = await h.executor.ReportPlanFinished({ runId: run!.id, planJson: plan() });
    const errored = await h.executor.ReportRunErrored({ runId: run!.id, message: 'apply failed' });
    expect(errored.run!.status).toBe('RUN_STATUS_ERRORED');
    expect((await h.executor.ReportRunErrored({ runId: run!.id, message: 'again' })).run).toEqual(
      errored.run,
    );
    const { policyCheck } = await h.checks.GetPolicyCheck(
      { id: planned.run!.policyCheckIds[0] },
      owner('acme'),
    );
    expect(policyCheck!.status).toBe('POLICY_CHECK_STATUS_CANCELED');
    expect((await rejection(h.executor.ReportRunCanceled({ runId: run!.id }))).code).toBe(
      'RUNS_RUN_STATE_CONFLICT',
    );
  });

  it("an executor's error message is recorded made storable (NUL → U+FFFD), not refused with INTERNAL", async () => {
    const { run } = await h.runs.CreateRun({ workspaceId: 'ws-guarded' }, owner('acme'));
    const errored = await h.executor.ReportRunErrored({
      runId: run!.id,
      message: 'apply failed on a\u0000b',
    });
    expect(errored.run!.status).toBe('RUN_STATUS_ERRORED');
    const { runEvents } = await h.runs.ListRunEvents({ runId: run!.id }, owner('acme'));
    expect(runEvents.at(-1)).toMatchObject({
      action: 'RUN_EVENT_ACTION_ERRORED',
      description: 'apply failed on a\uFFFDb',
    });
  });

  it('lists runs (with their check, comment and event ids) in a constant number of queries', async () => {
    h.workspaces.add('ws-many', 'acme');
    for (let i = 0; i < 6; i++) {
      const { run } = await h.runs.CreateRun({ workspaceId: 'ws-many' }, owner('acme'));
      await h.comments.CreateComment({ runId: run!.id, body: `c${i}` }, owner('acme'));
    }
    const queriesFor = async (size: number) => {
      const before = h.service.db.queryCount;
      const res = await h.runs.ListWorkspaceRuns(
        { workspaceId: 'ws-many', page: { number: 1, size } },
        owner('acme'),
      );
      expect(res.runs).toHaveLength(size);
      expect(res.runs.every((r) => r.commentIds.length === 1)).toBe(true);
      return h.service.db.queryCount - before;
    };
    // The service's background work (relay polls, the object sweeper) also queries; it only ever
    // adds, so the fewest queries seen over a few listings is the listing's own count.
    const fewestFor = async (size: number) => {
      const counts: number[] = [];
      for (let i = 0; i < 3; i++) counts.push(await queriesFor(size));
      return Math.min(...counts);
    };
    expect(await fewestFor(6)).toBe(await fewestFor(1));
  });

  it('migration 0005 re-keys status timestamps stored under the served keys by status word', async () => {
    const { run } = await h.runs.CreateRun({ workspaceId: 'ws-plain' }, owner('acme'));
    await h.service.db.query('UPDATE runs SET status_timestamps = $2 WHERE id = $1', [
      run!.id,
      JSON.stringify({
        'pending-at': '2026-01-01T00:00:00.000Z',
        'policy-checked-at': '2026-01-01T00:00:01.000Z',
      }),
    ]);
    const sql = await readFile(
      new URL('../migrations/0005_key_status_timestamps_by_status.sql', import.meta.url),
      'utf8',
    );
    await h.service.db.query(sql);
    const { run: migrated } = await h.runs.GetRun({ id: run!.id }, owner('acme'));
    expect(
      Object.fromEntries(Object.entries(migrated!.statusTimestamps).map(([k, v]) => [k, timestampToIso(v)])),
    ).toEqual({ pending: '2026-01-01T00:00:00.000Z', policy_checked: '2026-01-01T00:00:01.000Z' });
  });
});
