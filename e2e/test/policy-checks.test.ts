import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, createOrganization } from './support/fixtures.js';
import {
  claimCheck,
  createRun,
  guardedWorkspace,
  type InternalRunsApi,
  internalRunsApi,
  type Level,
  planJson,
} from './support/runs.js';
import { startTestSystem, type TestSystem } from './support/system.js';

let t: TestSystem;
let internal: InternalRunsApi;
let org: Awaited<ReturnType<typeof createOrganization>>;
beforeAll(async () => {
  t = await startTestSystem();
  internal = internalRunsApi(t);
  org = await createOrganization(t, 'chk');
});
afterAll(async () => {
  internal?.close();
  await t?.stop();
});

const NOT_FOUND = { errors: [{ status: '404', code: 'NOT_FOUND', title: 'not found' }] };

/** A run whose plan finished on a workspace guarded by these policies: one queued check. */
async function runWithCheck(
  policies: Array<[name: string, level: Level]>,
  runAttributes: Record<string, unknown> = {},
) {
  const {
    workspace,
    set,
    policies: created,
  } = await guardedWorkspace(
    org.owner.api,
    org.name,
    policies.map(([name, level]) => ({ name: `${name}-${Math.random().toString(36).slice(2, 8)}`, level })),
  );
  const run = await createRun(org.owner.api, workspace.id, runAttributes);
  await internal.executor.ReportPlanFinished({ runId: run.id, planJson: planJson(['aws_s3_bucket']) });
  const shown = (await org.owner.api.get(`/runs/${run.id}`)).body.data;
  const checkId = shown.relationships['policy-checks'].data[0]?.id as string;
  const policyNames = created.map((p) => p.attributes.name as string);
  return { run: shown, checkId, setId: set.id, workspace, policyNames };
}

/** Evaluates the check through the evaluator protocol with these pass/fail results (by policy order). */
async function evaluate(
  policies: Array<[string, Level]>,
  passed: boolean[],
  runAttributes: Record<string, unknown> = {},
) {
  const ctx = await runWithCheck(policies, runAttributes);
  const lease = await claimCheck(internal, ctx.checkId);
  const names = ctx.policyNames;
  await internal.evaluator.CompletePolicyCheck({
    policyCheckId: ctx.checkId,
    leaseToken: lease.leaseToken,
    outcomes: names.map((policyName, i) => ({ policySetId: ctx.setId, policyName, passed: passed[i]! })),
    durationMs: 42,
    engineDetailsJson: JSON.stringify({ rules: names.length }),
  });
  const check = (await org.owner.api.get(`/policy-checks/${ctx.checkId}`)).body.data;
  const run = (await org.owner.api.get(`/runs/${ctx.run.id}`)).body.data;
  return { ...ctx, check, run };
}

describe('policy checks: creation and shape', () => {
  it('a finished plan on a guarded workspace creates ONE queued check (scope organization) and the run is policy_checking', async () => {
    const { run, checkId } = await runWithCheck([
      ['a', 'hard-mandatory'],
      ['b', 'advisory'],
    ]);
    expect(run.attributes.status).toBe('policy_checking');
    expect(run.relationships['policy-checks'].data).toEqual([{ id: checkId, type: 'policy-checks' }]);
    expect(checkId).toMatch(/^polchk-[0-9A-Za-z]{16}$/);
    const res = await org.owner.api.get(`/policy-checks/${checkId}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: checkId,
      type: 'policy-checks',
      attributes: {
        result: null,
        scope: 'organization',
        status: 'queued',
        'status-timestamps': { 'queued-at': expect.stringMatching(/Z$/) },
        actions: { 'is-overridable': false },
        permissions: { 'can-override': true },
        'created-at': expect.stringMatching(/\.\d{3}Z$/),
      },
      relationships: { run: { data: { id: run.id, type: 'runs' } } },
      links: { self: `/api/v2/policy-checks/${checkId}`, output: `/api/v2/policy-checks/${checkId}/output` },
    });
  });

  it('the output is 204 before the evaluator reported', async () => {
    const { checkId } = await runWithCheck([['a', 'advisory']]);
    const res = await org.owner.api.get(`/policy-checks/${checkId}/output`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    // Leave nothing queued for the next tests' claims.
    const lease = await claimCheck(internal, checkId);
    await internal.evaluator.FailPolicyCheck({
      policyCheckId: checkId,
      leaseToken: lease.leaseToken,
      errorMessage: 'test cleanup',
    });
  });
});

describe('policy checks: outcomes decide the check and the run', () => {
  it('passing policies → passed, run policy_checked, with the full result hash', async () => {
    const { check, run } = await evaluate(
      [
        ['a', 'hard-mandatory'],
        ['b', 'soft-mandatory'],
      ],
      [true, true],
    );
    expect(check.attributes).toMatchObject({ status: 'passed', actions: { 'is-overridable': false } });
    expect(check.attributes.result).toEqual({
      result: true,
      passed: 2,
      'total-failed': 0,
      'hard-failed': 0,
      'soft-failed': 0,
      'advisory-failed': 0,
      'duration-ms': 42,
      duration: 42,
      kind_a: { rules: 2 },
    });
    const ts = check.attributes['status-timestamps'];
    expect(Object.keys(ts)).toEqual(['queued-at', 'passed-at']);
    expect(Date.parse(ts['passed-at'])).toBeGreaterThanOrEqual(Date.parse(ts['queued-at']));
    expect(run.attributes.status).toBe('policy_checked');
  });

  it('an advisory failure is counted but the check passes', async () => {
    const { check, run } = await evaluate(
      [
        ['a', 'advisory'],
        ['b', 'hard-mandatory'],
      ],
      [false, true],
    );
    expect(check.attributes.status).toBe('passed');
    expect(check.attributes.result).toMatchObject({
      result: true,
      passed: 1,
      'total-failed': 1,
      'advisory-failed': 1,
    });
    expect(run.attributes.status).toBe('policy_checked');
  });

  it('a soft-mandatory failure → soft_failed (overridable), run policy_override', async () => {
    const { check, run } = await evaluate([['a', 'soft-mandatory']], [false]);
    expect(check.attributes).toMatchObject({ status: 'soft_failed', actions: { 'is-overridable': true } });
    expect(check.attributes.result).toMatchObject({ result: false, 'soft-failed': 1, 'total-failed': 1 });
    expect(check.attributes['status-timestamps']).toHaveProperty('soft-failed-at');
    expect(run.attributes.status).toBe('policy_override');
  });

  it('a hard-mandatory failure → hard_failed, run errored', async () => {
    const { check, run } = await evaluate(
      [
        ['a', 'soft-mandatory'],
        ['b', 'hard-mandatory'],
      ],
      [false, false],
    );
    expect(check.attributes).toMatchObject({ status: 'hard_failed', actions: { 'is-overridable': false } });
    expect(check.attributes.result).toMatchObject({ 'hard-failed': 1, 'soft-failed': 1, 'total-failed': 2 });
    expect(run.attributes.status).toBe('errored');
  });

  it('a plan-only run with a soft failure ends in policy_soft_failed', async () => {
    const { check, run } = await evaluate([['a', 'soft-mandatory']], [false], { 'plan-only': true });
    expect(check.attributes).toMatchObject({ status: 'soft_failed', actions: { 'is-overridable': false } });
    expect(run.attributes.status).toBe('policy_soft_failed');
  });

  it('serves the report as text/plain once evaluated', async () => {
    const { checkId } = await evaluate(
      [
        ['a', 'hard-mandatory'],
        ['b', 'advisory'],
      ],
      [true, false],
    );
    const res = await org.owner.api.get(`/policy-checks/${checkId}/output`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(res.text).toMatch(/^kind_a Result: true\n/);
    expect(res.text).toContain('\n2 policies evaluated.\n');
  });
});

describe('policy checks: override', () => {
  it('overrides a soft failure (200): overridden-at, result kept, run policy_checked, justification as a run event', async () => {
    const { check, run, checkId } = await evaluate([['a', 'soft-mandatory']], [false]);
    const approver = await createMember(t, org, ['read-runs', 'manage-policy-overrides']);
    const res = await approver.api.post(`/policy-checks/${checkId}/actions/override`, {
      comment: 'Accepted risk, JIRA-42',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.attributes).toMatchObject({
      status: 'overridden',
      actions: { 'is-overridable': false },
      permissions: { 'can-override': true },
      result: check.attributes.result,
    });
    expect(Object.keys(res.body.data.attributes['status-timestamps'])).toEqual([
      'queued-at',
      'soft-failed-at',
      'overridden-at',
    ]);
    expect((await org.owner.api.get(`/runs/${run.id}`)).body.data.attributes.status).toBe('policy_checked');
    const events = (await org.owner.api.get(`/runs/${run.id}/run-events`)).body.data;
    expect(events.at(-1)).toMatchObject({
      attributes: { action: 'policy-overridden', description: 'Accepted risk, JIRA-42' },
      relationships: {
        actor: { data: { id: approver.id, type: 'users' } },
        'policy-check': { data: { id: checkId, type: 'policy-checks' } },
      },
    });
  });

  it('accepts a body-less override with the JSON:API content type', async () => {
    const { checkId } = await evaluate([['a', 'soft-mandatory']], [false]);
    const res = await org.owner.api.post(`/policy-checks/${checkId}/actions/override`, undefined, {
      'content-type': 'application/vnd.api+json',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.attributes.status).toBe('overridden');
  });

  it('answers 409 for checks that are not soft_failed (passed, overridden, queued)', async () => {
    const passed = await evaluate([['a', 'soft-mandatory']], [true]);
    const soft = await evaluate([['a', 'soft-mandatory']], [false]);
    await org.owner.api.post(`/policy-checks/${soft.checkId}/actions/override`);
    const queued = await runWithCheck([['a', 'soft-mandatory']]);
    for (const id of [passed.checkId, soft.checkId, queued.checkId]) {
      const res = await org.owner.api.post(`/policy-checks/${id}/actions/override`);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        errors: [
          {
            status: '409',
            code: 'RUNS_POLICY_CHECK_NOT_OVERRIDABLE',
            title: 'conflict',
            detail: 'The policy check is not in an overridable state.',
          },
        ],
      });
    }
    const lease = await claimCheck(internal, queued.checkId);
    await internal.evaluator.FailPolicyCheck({
      policyCheckId: queued.checkId,
      leaseToken: lease.leaseToken,
      errorMessage: 'cleanup',
    });
  });

  it('needs manage-policy-overrides: others get 404 and change nothing; can-override is per caller', async () => {
    const { checkId } = await evaluate([['a', 'soft-mandatory']], [false]);
    const reader = await createMember(t, org, ['read-runs']);
    const res = await reader.api.post(`/policy-checks/${checkId}/actions/override`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
    const seen = (await reader.api.get(`/policy-checks/${checkId}`)).body.data.attributes;
    expect(seen).toMatchObject({ status: 'soft_failed', permissions: { 'can-override': false } });
    const stranger = (await createOrganization(t, 'chkx')).owner;
    expect((await stranger.api.post(`/policy-checks/${checkId}/actions/override`)).status).toBe(404);
    expect((await t.anonymous.post(`/policy-checks/${checkId}/actions/override`)).status).toBe(401);
    expect((await org.owner.api.post('/policy-checks/polchk-0000000000000000/actions/override')).status).toBe(
      404,
    );
  });

  it('rejects a non-string justification with 422', async () => {
    const { checkId } = await evaluate([['a', 'soft-mandatory']], [false]);
    const res = await org.owner.api.post(`/policy-checks/${checkId}/actions/override`, { comment: 5 });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ status: '422', source: { pointer: '/comment' } });
    expect((await org.owner.api.get(`/policy-checks/${checkId}`)).body.data.attributes.status).toBe(
      'soft_failed',
    );
  });
});

describe('policy checks: listing, include and authorization', () => {
  it('lists all checks without page parameters (no pagination meta) and pages with them', async () => {
    const { run, checkId } = await evaluate([['a', 'advisory']], [true]);
    const all = await org.owner.api.get(`/runs/${run.id}/policy-checks`);
    expect(all.status).toBe(200);
    expect(all.body.data).toEqual([(await org.owner.api.get(`/policy-checks/${checkId}`)).body.data]);
    expect(all.body.meta).toBeUndefined();
    const paged = await org.owner.api.get(`/runs/${run.id}/policy-checks?page%5Bsize%5D=1`);
    expect(paged.body.data).toHaveLength(1);
    expect(paged.body.meta.pagination).toMatchObject({
      'current-page': 1,
      'page-size': 1,
      'total-count': 1,
      'total-pages': 1,
    });
    const past = await org.owner.api.get(`/runs/${run.id}/policy-checks?page[number]=3`);
    expect(past.body.data).toEqual([]);
    expect(past.body.meta.pagination).toMatchObject({ 'current-page': 3, 'total-count': 1 });
    expect((await org.owner.api.get(`/runs/${run.id}/policy-checks?page[size]=0`)).status).toBe(422);
  });

  it('includes run and run.workspace on show and list', async () => {
    const { run, checkId, workspace } = await evaluate([['a', 'advisory']], [true]);
    const runDoc = (await org.owner.api.get(`/runs/${run.id}`)).body.data;
    const wsDoc = (await org.owner.api.get(`/workspaces/${workspace.id}`)).body.data;
    const withRun = await org.owner.api.get(`/policy-checks/${checkId}?include=run`);
    expect(withRun.body.included).toEqual([runDoc]);
    expect(withRun.body.included[0].attributes.status).toBe('policy_checked');
    const both = await org.owner.api.get(`/runs/${run.id}/policy-checks?include=run%2Crun.workspace`);
    expect(both.body.included).toEqual([runDoc, wsDoc]);
    const nested = await org.owner.api.get(`/policy-checks/${checkId}?include=run.workspace`);
    expect(nested.body.included).toEqual([runDoc, wsDoc]);
    const bad = await org.owner.api.get(`/policy-checks/${checkId}?include=workspace`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ status: '400', source: { parameter: 'include' } });
    expect((await org.owner.api.get(`/runs/${run.id}/policy-checks?include=bogus`)).status).toBe(400);
  });

  it('answers 401 without a token, 404 for other organizations and members without read-runs', async () => {
    const { run, checkId } = await evaluate([['a', 'advisory']], [true]);
    for (const path of [
      `/policy-checks/${checkId}`,
      `/runs/${run.id}/policy-checks`,
      `/policy-checks/${checkId}/output`,
    ]) {
      expect((await t.anonymous.get(path)).status).toBe(401);
    }
    const stranger = (await createOrganization(t, 'chky')).owner;
    const noReads = await createMember(t, org, ['manage-policies', 'manage-policy-overrides']);
    for (const user of [stranger, noReads]) {
      expect((await user.api.get(`/policy-checks/${checkId}`)).body).toEqual(NOT_FOUND);
      expect((await user.api.get(`/runs/${run.id}/policy-checks`)).status).toBe(404);
      expect((await user.api.get(`/policy-checks/${checkId}/output`)).status).toBe(404);
    }
    expect((await org.owner.api.get('/policy-checks/polchk-0000000000000000')).status).toBe(404);
    expect((await org.owner.api.get('/runs/run-0000000000000000/policy-checks')).status).toBe(404);
  });
});
