import { gzipSync } from 'node:zlib';
import * as grpc from '@grpc/grpc-js';
import { fromTimestamp, type runsV1 } from '@policyhub/contracts';
import { conflict } from '@policyhub/errors';
import { readServiceError } from '@policyhub/grpc-runtime';
import { waitFor } from '@policyhub/testing';
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

type Level = 'advisory' | 'soft-mandatory' | 'hard-mandatory';

describe('runs service: policy checks and the evaluator protocol', () => {
  let h: RunsHarness;
  let workspaceCount = 0;
  beforeAll(async () => {
    h = await startRunsHarness();
  });
  afterAll(() => h?.stop());

  /** A run whose plan finished on a workspace covered by one set with these policies. */
  async function checkedRun(
    policies: Array<[string, Level]>,
    options: { planOnly?: boolean; withoutCode?: boolean } = {},
  ) {
    const ws = h.workspaces.add(`ws-${++workspaceCount}`, 'acme');
    const set = policySet(`polset-${workspaceCount}`, policies);
    // As runs' client records a policy whose code was never uploaded.
    if (options.withoutCode) for (const p of set.policies) p.code = '';
    h.policySets.byWorkspace.set(ws.id, [set]);
    const { run } = await h.runs.CreateRun(
      { workspaceId: ws.id, planOnly: options.planOnly ?? false },
      owner('acme'),
    );
    const planned = await h.executor.ReportPlanFinished({
      runId: run!.id,
      planJson: plan(['aws_s3_bucket']),
    });
    return { runId: run!.id, checkId: planned.run!.policyCheckIds[0]!, setId: `polset-${workspaceCount}` };
  }

  /** Claims checks until `checkId` comes up (other tests' checks are completed as passing). */
  async function claim(checkId: string, leaseSeconds = 60): Promise<runsV1.PolicyCheckLease__Output> {
    for (let i = 0; i < 50; i++) {
      const res = await h.evaluator.ClaimPolicyCheck({ evaluatorId: 'test', leaseSeconds });
      if (!res.claimed) break;
      if (res.lease!.policyCheckId === checkId) return res.lease!;
    }
    throw new Error(`check ${checkId} was not claimable`);
  }

  async function evaluate(policies: Array<[string, Level, boolean]>, options: { planOnly?: boolean } = {}) {
    const { runId, checkId, setId } = await checkedRun(
      policies.map(([n, l]) => [n, l]),
      options,
    );
    const lease = await claim(checkId);
    const done = await h.evaluator.CompletePolicyCheck({
      policyCheckId: checkId,
      leaseToken: lease.leaseToken,
      outcomes: policies.map(([policyName, , passed]) => ({ policySetId: setId, policyName, passed })),
      durationMs: 12,
    });
    const { policyCheck } = await h.checks.GetPolicyCheck({ id: checkId }, owner('acme'));
    const { run } = await h.runs.GetRun({ id: runId }, owner('acme'));
    return { status: done.status, check: policyCheck!, run: run!, lease };
  }

  it('sends a policy whose code was never uploaded without code (unset, not "")', async () => {
    const { checkId } = await checkedRun([['no-code', 'hard-mandatory']], { withoutCode: true });
    const lease = await claim(checkId);
    const input = await h.evaluator.GetPolicyCheckInput({
      policyCheckId: checkId,
      leaseToken: lease.leaseToken,
    });
    const [policy] = input.policySets[0]!.policies;
    expect(policy).toMatchObject({ name: 'no-code' });
    expect(policy!.code).toBeUndefined();
  });

  it('hands the evaluator the snapshot of the applicable sets and the plan', async () => {
    const { runId, checkId, setId } = await checkedRun([['no-s3', 'hard-mandatory']]);
    const lease = await claim(checkId);
    expect(lease).toMatchObject({ attempt: 1 });
    const input = await h.evaluator.GetPolicyCheckInput({
      policyCheckId: checkId,
      leaseToken: lease.leaseToken,
    });
    expect(input).toMatchObject({ policyCheckId: checkId, runId, organization: 'acme' });
    expect(input.policySets).toEqual([
      expect.objectContaining({
        id: setId,
        kind: 'EVALUATION_POLICY_KIND_A',
        policies: [
          expect.objectContaining({
            id: 'pol-no-s3',
            name: 'no-s3',
            enforcementLevel: 'EVALUATION_ENFORCEMENT_LEVEL_HARD_MANDATORY',
            code: '# no-s3',
          }),
        ],
      }),
    ]);
    // The plan comes by reference; its bytes stream through ReadPolicyCheckObject for the lease holder.
    expect(input.plan).toMatchObject({ key: `acme/runs/${runId}/plan.json` });
    const chunks: Buffer[] = [];
    const read = h.evaluator.raw.ReadPolicyCheckObject(
      {
        policyCheckId: checkId,
        leaseToken: lease.leaseToken,
        key: input.plan!.key,
      },
      h.evaluator.metadata(),
    );
    for await (const chunk of read as AsyncIterable<{ data: Buffer }>) chunks.push(chunk.data);
    const bytes = Buffer.concat(chunks);
    expect(bytes.length).toBe(Number(input.plan!.sizeBytes));
    expect(JSON.parse(bytes.toString()).resource_changes[0].type).toBe('aws_s3_bucket');
    const other = h.evaluator.raw.ReadPolicyCheckObject(
      {
        policyCheckId: checkId,
        leaseToken: lease.leaseToken,
        key: 'acme/policy-sets/polset-x/versions/other.tar.gz',
      },
      h.evaluator.metadata(),
    );
    const refused = await (async () => {
      try {
        for await (const _ of other as AsyncIterable<unknown>) {
        }
        return undefined;
      } catch (err) {
        return readServiceError(err);
      }
    })();
    expect(refused).toMatchObject({ status: grpc.status.NOT_FOUND, code: 'RUNS_OBJECT_NOT_FOUND' });
    const wrong = await rejection(
      h.evaluator.GetPolicyCheckInput({ policyCheckId: checkId, leaseToken: 'nope' }),
    );
    expect(wrong).toMatchObject({ status: grpc.status.FAILED_PRECONDITION, code: 'RUNS_LEASE_LOST' });
  });

  it("hands the evaluator the set's current parameters, read at input time and stored nowhere", async () => {
    const secret = 'tok-7f3a9c-sensitive';
    const { runId, checkId, setId } = await checkedRun([['params', 'hard-mandatory']]);
    // Set after the plan finished: what counts is what the set holds when the input is read.
    h.policySets.parameters.set(setId, [
      { key: 'region', value: 'eu-west-1', sensitive: false },
      { key: 'token', value: secret, sensitive: true },
    ]);
    const lease = await claim(checkId);
    const input = await h.evaluator.GetPolicyCheckInput({
      policyCheckId: checkId,
      leaseToken: lease.leaseToken,
    });
    expect(input.policySets[0]).toMatchObject({
      id: setId,
      parameters: { region: 'eu-west-1', token: secret },
      sensitiveParameters: ['token'],
    });
    expect(h.policySets.parameterCalls.at(-1)).toEqual({ organization: 'acme', policySetIds: [setId] });
    // Nothing of them in runs' tables (the check's snapshot included).
    const { rows } = await h.service.db.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM policy_checks x WHERE strpos(x::text, $1) > 0)
            + (SELECT count(*) FROM runs x WHERE strpos(x::text, $1) > 0)
            + (SELECT count(*) FROM run_events x WHERE strpos(x::text, $1) > 0)
            + (SELECT count(*) FROM outbox x WHERE strpos(x::text, $1) > 0) AS n`,
      [secret],
    );
    expect(Number(rows[0]!.n)).toBe(0);
    const { rows: snapshot } = await h.service.db.query<{ policy_sets: unknown }>(
      'SELECT policy_sets FROM policy_checks WHERE id = $1',
      [checkId],
    );
    expect(JSON.stringify(snapshot[0]!.policy_sets)).not.toContain('eu-west-1');
    // A sensitive value policy-sets cannot decrypt: the evaluator is told which, and why.
    h.policySets.parameterError = conflict(
      'POLICY_SETS_PARAMETER_UNREADABLE',
      `parameter token (var-1) of policy set ${setId} cannot be decrypted: sealed with key old, which is not configured`,
    );
    try {
      const unreadable = await rejection(
        h.evaluator.GetPolicyCheckInput({ policyCheckId: checkId, leaseToken: lease.leaseToken }),
      );
      expect(unreadable).toMatchObject({
        status: grpc.status.FAILED_PRECONDITION,
        code: 'POLICY_SETS_PARAMETER_UNREADABLE',
      });
    } finally {
      h.policySets.parameterError = undefined;
    }
    await h.evaluator.FailPolicyCheck({ policyCheckId: checkId, leaseToken: lease.leaseToken });
    expect((await h.runs.GetRun({ id: runId }, owner('acme'))).run!.status).toBe('RUN_STATUS_ERRORED');
  });

  it('all passing → passed, run policy_checked, with counts and a non-empty engine hash', async () => {
    const { status, check, run } = await evaluate([
      ['a', 'hard-mandatory', true],
      ['b', 'soft-mandatory', true],
    ]);
    expect(status).toBe('POLICY_CHECK_STATUS_PASSED');
    expect(check).toMatchObject({
      status: 'POLICY_CHECK_STATUS_PASSED',
      isOverridable: false,
      canOverride: true,
      hasOutput: true,
    });
    expect(check.result).toMatchObject({
      result: true,
      passed: 2,
      totalFailed: 0,
      hardFailed: 0,
      softFailed: 0,
      advisoryFailed: 0,
      durationMs: 12,
    });
    expect(Object.keys(JSON.parse(check.result!.engineDetailsJson)).length).toBeGreaterThan(0);
    expect(run.status).toBe('RUN_STATUS_POLICY_CHECKED');
    expect(Object.keys(check.statusTimestamps)).toEqual(['queued', 'passed']);
    expect(fromTimestamp(check.statusTimestamps.passed)!.getTime()).toBeGreaterThanOrEqual(
      fromTimestamp(check.statusTimestamps.queued)!.getTime(),
    );
  });

  it('an advisory failure is counted but does not block', async () => {
    const { check, run } = await evaluate([
      ['a', 'advisory', false],
      ['b', 'hard-mandatory', true],
    ]);
    expect(check.status).toBe('POLICY_CHECK_STATUS_PASSED');
    expect(check.result).toMatchObject({ result: true, passed: 1, totalFailed: 1, advisoryFailed: 1 });
    expect(run.status).toBe('RUN_STATUS_POLICY_CHECKED');
  });

  it('a soft-mandatory failure → soft_failed (overridable), run policy_override', async () => {
    const { check, run } = await evaluate([
      ['a', 'soft-mandatory', false],
      ['b', 'advisory', false],
    ]);
    expect(check).toMatchObject({ status: 'POLICY_CHECK_STATUS_SOFT_FAILED', isOverridable: true });
    expect(check.result).toMatchObject({ result: false, totalFailed: 2, softFailed: 1, advisoryFailed: 1 });
    expect(run.status).toBe('RUN_STATUS_POLICY_OVERRIDE');
  });

  it('a hard-mandatory failure wins over soft ones → hard_failed, run errored', async () => {
    const { check, run } = await evaluate([
      ['a', 'soft-mandatory', false],
      ['b', 'hard-mandatory', false],
    ]);
    expect(check).toMatchObject({ status: 'POLICY_CHECK_STATUS_HARD_FAILED', isOverridable: false });
    expect(check.result).toMatchObject({ hardFailed: 1, softFailed: 1, totalFailed: 2 });
    expect(run.status).toBe('RUN_STATUS_ERRORED');
  });

  it('a plan-only run with a soft failure ends in policy_soft_failed and cannot be overridden', async () => {
    const { check, run } = await evaluate([['a', 'soft-mandatory', false]], { planOnly: true });
    expect(check).toMatchObject({ status: 'POLICY_CHECK_STATUS_SOFT_FAILED', isOverridable: false });
    expect(run.status).toBe('RUN_STATUS_POLICY_SOFT_FAILED');
    const res = await rejection(h.checks.OverridePolicyCheck({ id: check.id }, owner('acme')));
    expect(res).toMatchObject({
      status: grpc.status.FAILED_PRECONDITION,
      code: 'RUNS_POLICY_CHECK_NOT_OVERRIDABLE',
    });
  });

  it('override: soft_failed → overridden, run → policy_checked, justification recorded as a run event', async () => {
    const { check, run } = await evaluate([['a', 'soft-mandatory', false]]);
    const overrider = member('acme', ['manage-policy-overrides'], 'user-approver');
    expect(
      (await rejection(h.checks.OverridePolicyCheck({ id: check.id }, member('acme', ['read-runs'])))).status,
    ).toBe(grpc.status.NOT_FOUND);
    const { policyCheck } = await h.checks.OverridePolicyCheck(
      { id: check.id, comment: ' approved by CAB ' },
      overrider,
    );
    expect(policyCheck).toMatchObject({
      status: 'POLICY_CHECK_STATUS_OVERRIDDEN',
      isOverridable: false,
      overrideComment: 'approved by CAB',
    });
    expect(policyCheck!.result).toEqual(check.result);
    expect(Object.keys(policyCheck!.statusTimestamps)).toEqual(['queued', 'soft_failed', 'overridden']);
    const after = (await h.runs.GetRun({ id: run.id }, owner('acme'))).run!;
    expect(after.status).toBe('RUN_STATUS_POLICY_CHECKED');
    const { runEvents } = await h.runs.ListRunEvents({ runId: run.id }, owner('acme'));
    expect(runEvents.at(-1)).toMatchObject({
      action: 'RUN_EVENT_ACTION_POLICY_OVERRIDDEN',
      description: 'approved by CAB',
      actorUserId: 'user-approver',
      policyCheckId: check.id,
    });
    const twice = await rejection(h.checks.OverridePolicyCheck({ id: check.id }, overrider));
    expect(twice.code).toBe('RUNS_POLICY_CHECK_NOT_OVERRIDABLE');
  });

  it('overriding a passed check is a conflict; can-override follows the caller', async () => {
    const { check } = await evaluate([['a', 'soft-mandatory', true]]);
    const res = await rejection(h.checks.OverridePolicyCheck({ id: check.id }, owner('acme')));
    expect(res).toMatchObject({
      status: grpc.status.FAILED_PRECONDITION,
      code: 'RUNS_POLICY_CHECK_NOT_OVERRIDABLE',
    });
    expect(res.items[0]).toMatchObject({ detail: 'The policy check is not in an overridable state.' });
    const reader = (await h.checks.GetPolicyCheck({ id: check.id }, member('acme', ['read-runs'])))
      .policyCheck!;
    expect(reader.canOverride).toBe(false);
  });

  it('errors the check when outcomes miss, invent or repeat a policy, naming them', async () => {
    const cases = [
      {
        outcomes: ['a'],
        problem: (set: string) => `no outcome for set-${set}/b`,
      },
      {
        outcomes: ['a', 'b', 'c'],
        problem: (set: string) => `outcome for policies that are not part of the check: set-${set}/c`,
      },
      {
        outcomes: ['a', 'b', 'b'],
        problem: (set: string) => `more than one outcome for set-${set}/b`,
      },
    ];
    for (const { outcomes, problem } of cases) {
      const { runId, checkId, setId } = await checkedRun([
        ['a', 'hard-mandatory'],
        ['b', 'advisory'],
      ]);
      const lease = await claim(checkId);
      const done = await h.evaluator.CompletePolicyCheck({
        policyCheckId: checkId,
        leaseToken: lease.leaseToken,
        outcomes: outcomes.map((policyName) => ({ policySetId: setId, policyName, passed: true })),
        report: '0 policies evaluated.',
      });
      expect(done.status).toBe('POLICY_CHECK_STATUS_ERRORED');
      expect(done.errorMessage).toContain(problem(setId));
      const { policyCheck } = await h.checks.GetPolicyCheck({ id: checkId }, owner('acme'));
      expect(policyCheck).toMatchObject({ status: 'POLICY_CHECK_STATUS_ERRORED', result: null });
      const output = (await h.checks.GetPolicyCheckOutput({ id: checkId }, owner('acme'))).output;
      expect(output).toContain(`- ${problem(setId)}`);
      expect((await h.runs.GetRun({ id: runId }, owner('acme'))).run!.status).toBe('RUN_STATUS_ERRORED');
    }
  });

  it('judges a versioned set by the declaration its snapshot carries, never by re-reading the archive', async () => {
    const ws = h.workspaces.add(`ws-${++workspaceCount}`, 'acme');
    const key = `acme/policy-sets/polset-v${workspaceCount}/versions/v1.tar.gz`;
    // The archive's own file says one advisory policy; the declaration storage recorded at upload
    // says two, one of them hard-mandatory. The recorded one is what counts.
    await h.objects.put(key, gzipSync('policy "a" {\n  enforcement_level = "advisory"\n}\n'));
    const set = {
      ...policySet(`polset-v${workspaceCount}`, []),
      archiveObjectKey: key,
      versionId: 'polsetver-1',
      declaration: {
        root: '',
        configPath: 'sentinel.hcl',
        policies: [
          {
            name: 'a',
            enforcementLevel: 'hard-mandatory',
            source: './a.sentinel',
            query: '',
            description: '',
          },
          { name: 'b', enforcementLevel: 'advisory', source: './b.sentinel', query: '', description: '' },
        ],
        sentinelBlocksJson: '{}',
      },
    };
    h.policySets.byWorkspace.set(ws.id, [set]);
    const checkOf = async () => {
      const { run } = await h.runs.CreateRun({ workspaceId: ws.id, planOnly: false }, owner('acme'));
      const planned = await h.executor.ReportPlanFinished({ runId: run!.id, planJson: plan([]) });
      return planned.run!.policyCheckIds[0]!;
    };
    const checkId = await checkOf();
    const lease = await claim(checkId);
    const input = await h.evaluator.GetPolicyCheckInput({
      policyCheckId: checkId,
      leaseToken: lease.leaseToken,
    });
    expect(input.policySets[0]).toMatchObject({
      archive: { key },
      declaration: {
        root: '',
        configPath: 'sentinel.hcl',
        policies: [
          {
            name: 'a',
            enforcementLevel: 'DECLARED_ENFORCEMENT_LEVEL_HARD_MANDATORY',
            source: './a.sentinel',
          },
          { name: 'b', enforcementLevel: 'DECLARED_ENFORCEMENT_LEVEL_ADVISORY', source: './b.sentinel' },
        ],
        sentinelBlocksJson: '{}',
      },
    });
    const opened = h.objects.opened.length;
    const done = await h.evaluator.CompletePolicyCheck({
      policyCheckId: checkId,
      leaseToken: lease.leaseToken,
      outcomes: [
        { policySetId: set.id, policyName: 'a', passed: false },
        { policySetId: set.id, policyName: 'b', passed: true },
      ],
      durationMs: 3,
    });
    expect(done.status).toBe('POLICY_CHECK_STATUS_HARD_FAILED');
    expect(h.objects.opened.length).toBe(opened);

    // A version from before declarations were recorded is never judged: the check errors, saying why.
    h.policySets.byWorkspace.set(ws.id, [{ ...set, declaration: undefined }]);
    const legacyId = await checkOf();
    const legacyLease = await claim(legacyId);
    const legacy = await h.evaluator.CompletePolicyCheck({
      policyCheckId: legacyId,
      leaseToken: legacyLease.leaseToken,
      outcomes: [{ policySetId: set.id, policyName: 'a', passed: true }],
      durationMs: 3,
    });
    expect(legacy.status).toBe('POLICY_CHECK_STATUS_ERRORED');
    expect(legacy.errorMessage).toContain(
      `policy set ${set.name}: its current version was uploaded before PolicyHub recorded what archives declare; upload the version again`,
    );
    expect(h.objects.opened.length).toBe(opened);
  });

  it('a check whose sets hold no policy never passes', async () => {
    const { checkId } = await checkedRun([]);
    const lease = await claim(checkId);
    const done = await h.evaluator.CompletePolicyCheck({
      policyCheckId: checkId,
      leaseToken: lease.leaseToken,
      outcomes: [],
    });
    expect(done.status).toBe('POLICY_CHECK_STATUS_ERRORED');
    expect(done.errorMessage).toMatch(/hold no policy to evaluate/);
  });

  it('an evaluator error → check errored with its report, run errored', async () => {
    const { runId, checkId } = await checkedRun([['a', 'hard-mandatory']]);
    const lease = await claim(checkId);
    await h.evaluator.FailPolicyCheck({
      policyCheckId: checkId,
      leaseToken: lease.leaseToken,
      errorMessage: 'engine crashed',
    });
    const { policyCheck } = await h.checks.GetPolicyCheck({ id: checkId }, owner('acme'));
    expect(policyCheck).toMatchObject({
      status: 'POLICY_CHECK_STATUS_ERRORED',
      result: null,
      hasOutput: true,
    });
    const output = await h.checks.GetPolicyCheckOutput({ id: checkId }, owner('acme'));
    expect(output.output).toContain('engine crashed');
    expect((await h.runs.GetRun({ id: runId }, owner('acme'))).run!.status).toBe('RUN_STATUS_ERRORED');
  });

  it('the output is absent before evaluation and the rendered report afterwards', async () => {
    const { checkId, setId } = await checkedRun([
      ['a', 'hard-mandatory'],
      ['b', 'advisory'],
    ]);
    expect(await h.checks.GetPolicyCheckOutput({ id: checkId }, owner('acme'))).toEqual({ hasOutput: false });
    const lease = await claim(checkId);
    await h.evaluator.CompletePolicyCheck({
      policyCheckId: checkId,
      leaseToken: lease.leaseToken,
      outcomes: [
        { policySetId: setId, policyName: 'a', passed: true },
        { policySetId: setId, policyName: 'b', passed: false },
      ],
    });
    const { output } = await h.checks.GetPolicyCheckOutput({ id: checkId }, owner('acme'));
    expect(output).toContain('2 policies evaluated.');
    expect(output).toContain(`## Policy 2: set-${setId}/b (advisory)`);
  });

  it('an expired lease is claimable again; the first evaluator then lost it and cannot decide', async () => {
    const { checkId, setId } = await checkedRun([['a', 'hard-mandatory']]);
    const first = await claim(checkId, 1);
    expect((await h.evaluator.ClaimPolicyCheck({ evaluatorId: 'other', leaseSeconds: 60 })).claimed).toBe(
      false,
    );
    // Claimable again once the one-second lease has run out.
    const second = await waitFor(() => claim(checkId).catch(() => undefined), 5_000, 100);
    expect(second.attempt).toBe(2);
    const outcomes = [{ policySetId: setId, policyName: 'a', passed: true }];
    const lost = await rejection(
      h.evaluator.CompletePolicyCheck({ policyCheckId: checkId, leaseToken: first.leaseToken, outcomes }),
    );
    expect(lost.code).toBe('RUNS_LEASE_LOST');
    const done = await h.evaluator.CompletePolicyCheck({
      policyCheckId: checkId,
      leaseToken: second.leaseToken,
      outcomes,
    });
    expect(done.status).toBe('POLICY_CHECK_STATUS_PASSED');
    expect(
      (
        await rejection(
          h.evaluator.ExtendPolicyCheckLease({ policyCheckId: checkId, leaseToken: second.leaseToken }),
        )
      ).code,
    ).toBe('RUNS_LEASE_LOST');
  });

  it('lists a run checks unpaginated without a page, paginated with one', async () => {
    const { runId, checkId } = await checkedRun([['a', 'advisory']]);
    const all = await h.checks.ListRunPolicyChecks({ runId }, owner('acme'));
    expect(all.policyChecks.map((c) => c.id)).toEqual([checkId]);
    expect(all.page).toBeNull();
    const paged = await h.checks.ListRunPolicyChecks({ runId, page: { number: 2, size: 1 } }, owner('acme'));
    expect(paged.policyChecks).toEqual([]);
    expect(paged.page).toMatchObject({ currentPage: 2, totalCount: 1 });
    expect((await rejection(h.checks.ListRunPolicyChecks({ runId }, owner('globex')))).status).toBe(
      grpc.status.NOT_FOUND,
    );
  });

  it('a check whose leases keep expiring is errored instead of being handed out forever', async () => {
    const { runId, checkId } = await checkedRun([['a', 'hard-mandatory']]);
    // As if MAX_CLAIMS evaluators had claimed it and crashed (each lease expired).
    await h.service.db.query(
      "UPDATE policy_checks SET attempts = 5, lease_token = 'gone', lease_expires_at = now() - interval '1 second' WHERE id = $1",
      [checkId],
    );
    await expect(claim(checkId)).rejects.toThrow(/not claimable/);
    const { policyCheck } = await h.checks.GetPolicyCheck({ id: checkId }, owner('acme'));
    expect(policyCheck!.status).toBe('POLICY_CHECK_STATUS_ERRORED');
    expect((await h.checks.GetPolicyCheckOutput({ id: checkId }, owner('acme'))).output).toContain(
      'within 5 leases',
    );
    expect((await h.runs.GetRun({ id: runId }, owner('acme'))).run!.status).toBe('RUN_STATUS_ERRORED');
  });

  it('a result runs cannot store errors the check on its first lease, saying why; a failure is stored made safe', async () => {
    let deep = '1';
    for (let i = 0; i < 5_000; i++) deep = `{"a":${deep}}`;
    const cases: Array<[Partial<runsV1.CompletePolicyCheckRequest>, RegExp]> = [
      [{ report: 'aws_s3_bucket.a\u0000b is forbidden' }, /its report contains a NUL character/],
      [{ engineDetailsJson: deep }, /its details: it nests deeper than 64 levels/],
      [{ engineDetailsJson: '{"trace":"\\u0000"}' }, /the string at \/trace contains a NUL character/],
      [{ engineDetailsJson: '{"trace":"\\ud800"}' }, /unpaired UTF-16 surrogate/],
      [{ engineDetailsJson: JSON.stringify({ big: 'x'.repeat(1024 * 1024) }) }, /more than 1048576/],
    ];
    for (const [completion, expected] of cases) {
      const { runId, checkId, setId } = await checkedRun([['a', 'hard-mandatory']]);
      const lease = await claim(checkId);
      const done = await h.evaluator.CompletePolicyCheck({
        policyCheckId: checkId,
        leaseToken: lease.leaseToken,
        outcomes: [{ policySetId: setId, policyName: 'a', passed: true }],
        durationMs: 1,
        ...completion,
      });
      expect(done.status, String(expected)).toBe('POLICY_CHECK_STATUS_ERRORED');
      expect(done.errorMessage).toMatch(expected);
      expect(lease.attempt).toBe(1);
      const output = (await h.checks.GetPolicyCheckOutput({ id: checkId }, owner('acme'))).output;
      expect(output).toMatch(/the engine's result cannot be stored/);
      expect((await h.runs.GetRun({ id: runId }, owner('acme'))).run!.status).toBe('RUN_STATUS_ERRORED');
    }

    const { checkId } = await checkedRun([['a', 'hard-mandatory']]);
    const lease = await claim(checkId);
    await h.evaluator.FailPolicyCheck({
      policyCheckId: checkId,
      leaseToken: lease.leaseToken,
      errorMessage: 'engine crashed on aws_s3_bucket.a\u0000b',
      report: 'stderr: \u0000\ud800',
    });
    const { policyCheck } = await h.checks.GetPolicyCheck({ id: checkId }, owner('acme'));
    expect(policyCheck!.status).toBe('POLICY_CHECK_STATUS_ERRORED');
    // gRPC already turns a lone surrogate into replacement characters; the NUL is runs' to replace.
    expect((await h.checks.GetPolicyCheckOutput({ id: checkId }, owner('acme'))).output).toMatch(
      /^stderr: \uFFFD+$/,
    );
  });
});
