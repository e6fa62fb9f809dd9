import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FORBIDDEN_TYPES_ENGINE,
  startEvaluatorWorker,
  type WorkerProcess,
} from './support/evaluator-worker.js';
import { createMember, createOrganization, createWorkspace } from './support/fixtures.js';
import { createRun, guardedWorkspace, internalRunsApi, planJson } from './support/runs.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * Plans over HTTP only: a CI job brings the `terraform show -json` document in with
 * PUT /plans/:id/json-output, and the run moves on as with an executor's report, through a real
 * evaluator worker (a separate process) running the tiny example engine.
 */
const MiB = 1024 * 1024;
const PLAN_MAX_BYTES = 24 * MiB;

let t: TestSystem;
let org: Awaited<ReturnType<typeof createOrganization>>;
let worker: WorkerProcess;
const previous = process.env.PLAN_MAX_BYTES;
beforeAll(async () => {
  process.env.PLAN_MAX_BYTES = String(PLAN_MAX_BYTES);
  t = await startTestSystem();
  org = await createOrganization(t, 'plans');
  worker = startEvaluatorWorker({
    RUNS_ADDR: t.system.services.runs!.address,
    EVALUATOR_TOKEN: t.system.workerTokens.evaluator,
    EVALUATOR_COMMAND: JSON.stringify([process.execPath, FORBIDDEN_TYPES_ENGINE]),
  });
});
afterAll(async () => {
  await worker?.stop();
  await t?.stop();
  if (previous === undefined) delete process.env.PLAN_MAX_BYTES;
  else process.env.PLAN_MAX_BYTES = previous;
});

const putPlan = (api = org.owner.api, planId: string, body: string | Uint8Array) =>
  api.put(`/plans/${planId}/json-output`, body, { 'content-type': 'application/json' });

async function planOf(runId: string) {
  const run = (await org.owner.api.get(`/runs/${runId}`)).body.data;
  return run.relationships.plan.data.id as string;
}

/** The run once it left pending/policy_checking (the worker decides in another process). */
const settled = (runId: string) =>
  waitFor(
    async () => {
      const run = (await org.owner.api.get(`/runs/${runId}`)).body.data;
      return !['pending', 'policy_checking'].includes(run.attributes.status) && run;
    },
    45_000,
    100,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\nworker output:\n${worker.output()}`);
  });

async function guardrails() {
  const suffix = Math.random().toString(36).slice(2, 7);
  return guardedWorkspace(org.owner.api, org.name, [
    { name: `no-s3-${suffix}`, level: 'hard-mandatory', code: 'aws_s3_bucket\n' },
    { name: `no-iam-users-${suffix}`, level: 'soft-mandatory', code: 'aws_iam_user\n' },
  ]);
}

describe('a run and its plan', () => {
  it('every run has a pending plan, linked both ways, with upstream attributes', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const run = await createRun(org.owner.api, ws.id);
    const planId = await planOf(run.id);
    expect(planId).toMatch(/^plan-[0-9A-Za-z]{16}$/);
    const plan = await org.owner.api.get(`/plans/${planId}`);
    expect(plan.status).toBe(200);
    expect(plan.body.data).toMatchObject({
      id: planId,
      type: 'plans',
      attributes: {
        status: 'pending',
        'has-changes': false,
        'resource-additions': 0,
        'resource-changes': 0,
        'resource-destructions': 0,
      },
      relationships: { run: { data: { id: run.id, type: 'runs' } } },
      links: { self: `/api/v2/plans/${planId}`, 'json-output': `/api/v2/plans/${planId}/json-output` },
    });
    expect(Object.keys(plan.body.data.attributes['status-timestamps'])).toEqual(['pending-at']);
    expect((await org.owner.api.get(`/plans/${planId}/json-output`)).status).toBe(404);
  });
});

describe('PUT /plans/:id/json-output', () => {
  it('a passing plan: the check passes and the run is policy_checked; the plan is finished with its counts', {
    timeout: 60_000,
  }, async () => {
    const { workspace } = await guardrails();
    const run = await createRun(org.owner.api, workspace.id, { 'plan-only': true });
    const planId = await planOf(run.id);
    const document = planJson(['aws_instance', 'aws_eip']);
    const put = await putPlan(org.owner.api, planId, document);
    expect(put.status, put.text).toBe(200);
    expect(put.body.data.attributes).toMatchObject({
      status: 'finished',
      'has-changes': true,
      'resource-additions': 2,
      'resource-changes': 0,
      'resource-destructions': 0,
    });
    expect(put.body.data.attributes['status-timestamps']).toHaveProperty('finished-at');

    const done = await settled(run.id);
    expect(done.attributes.status).toBe('policy_checked');
    const [check] = (await org.owner.api.get(`/runs/${run.id}/policy-checks`)).body.data;
    expect(check.attributes).toMatchObject({ status: 'passed', result: { passed: 2, 'total-failed': 0 } });

    const stored = await org.owner.api.get(`/plans/${planId}/json-output`);
    expect(stored.status).toBe(200);
    expect(stored.headers.get('content-type')).toContain('application/json');
    expect(stored.text).toBe(document.toString());
    expect((await org.owner.api.get(`/plans/${planId}`)).body.data).toEqual(put.body.data);
  });

  it('a soft-failing plan waits for an override, which a justification lets through', {
    timeout: 60_000,
  }, async () => {
    const { workspace } = await guardrails();
    const run = await createRun(org.owner.api, workspace.id);
    expect((await putPlan(org.owner.api, await planOf(run.id), planJson(['aws_iam_user']))).status).toBe(200);
    expect((await settled(run.id)).attributes.status).toBe('policy_override');
    const [check] = (await org.owner.api.get(`/runs/${run.id}/policy-checks`)).body.data;
    expect(check.attributes).toMatchObject({ status: 'soft_failed', actions: { 'is-overridable': true } });
    const output = await org.owner.api.get(`/policy-checks/${check.id}/output`);
    expect(output.text).toMatch(/\(soft-mandatory\)\n\nResult: false/);

    const override = await org.owner.api.post(`/policy-checks/${check.id}/actions/override`, {
      comment: 'Accepted risk, JIRA-42',
    });
    expect(override.status, override.text).toBe(200);
    expect(override.body.data.attributes.status).toBe('overridden');
    expect((await org.owner.api.get(`/runs/${run.id}`)).body.data.attributes.status).toBe('policy_checked');
    const events = (await org.owner.api.get(`/runs/${run.id}/run-events`)).body.data;
    expect(
      events.find((e: { attributes: { action: string } }) => e.attributes.action === 'policy-overridden'),
    ).toMatchObject({
      attributes: { description: 'Accepted risk, JIRA-42' },
    });
  });

  it('a plan on a workspace no set applies to leaves the run planned; a large plan streams through', {
    timeout: 60_000,
  }, async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const run = await createRun(org.owner.api, ws.id);
    // Over the 8 MiB a single gRPC message may carry: the document never travels in one piece.
    const big = JSON.stringify({
      format_version: '1.2',
      resource_changes: [
        {
          address: 'null_resource.big',
          type: 'null_resource',
          change: { actions: ['delete'], before: { blob: 'x'.repeat(12 * MiB) } },
        },
      ],
    });
    const put = await putPlan(org.owner.api, await planOf(run.id), big);
    expect(put.status, put.text.slice(0, 300)).toBe(200);
    expect(put.body.data.attributes).toMatchObject({ 'resource-destructions': 1, 'has-changes': true });
    expect((await org.owner.api.get(`/runs/${run.id}`)).body.data.attributes.status).toBe('planned');
    const stored = await org.owner.api.get(`/plans/${put.body.data.id}/json-output`);
    expect(stored.text.length).toBe(big.length);
  });

  it('refuses what is not a Terraform plan document with 422 and a pointer, and the plan stays pending', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const run = await createRun(org.owner.api, ws.id);
    const planId = await planOf(run.id);
    const cases: Array<[string, string]> = [
      ['', '/'],
      ['not json', '/'],
      ['[1,2]', '/'],
      ['{"resource_changes":[]}', '/format_version'],
      ['{"format_version":"1.2"}', '/resource_changes'],
      ['{"format_version":"1.2","resource_changes":{}}', '/resource_changes'],
      [
        '{"format_version":"1.2","resource_changes":[{"address":1,"type":"t","change":{"actions":[]}}]}',
        '/resource_changes/0/address',
      ],
      [
        '{"format_version":"1.2","resource_changes":[{"address":"a","type":"t","change":{"actions":[null]}}]}',
        '/resource_changes/0/change/actions/0',
      ],
      ['{"format_version":"1.2","resource_changes":[', '/resource_changes/0'],
    ];
    for (const [body, pointer] of cases) {
      const res = await putPlan(org.owner.api, planId, body);
      expect(res.status, `${body}: ${res.text}`).toBe(422);
      expect(res.body.errors[0], body).toMatchObject({
        status: '422',
        title: 'invalid attribute',
        source: { pointer },
      });
    }
    // A property given twice in one object: engines keep one of the two, counts the other.
    const duplicate = await putPlan(
      org.owner.api,
      planId,
      '{"format_version":"1.2","resource_changes":[{"address":"a","type":"t","change":{"actions":["create"]},"type":"aws_s3_bucket"}]}',
    );
    expect(duplicate.status, duplicate.text).toBe(422);
    expect(duplicate.body.errors[0].detail).toContain('"type" appears twice in one object');
    // A binary plan file (a zip) sent instead of its JSON: the answer says what to send.
    const binary = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]), Buffer.alloc(512, 7)]);
    const tfplan = await org.owner.api.put(`/plans/${planId}/json-output`, binary, {
      'content-type': 'application/octet-stream',
    });
    expect(tfplan.status).toBe(422);
    expect(tfplan.body.errors[0]).toMatchObject({
      detail:
        'the plan is not JSON: send the output of `terraform show -json <plan file>`, not the plan file itself',
      source: { pointer: '/' },
    });
    const plan = (await org.owner.api.get(`/plans/${planId}`)).body.data;
    expect(plan.attributes.status).toBe('pending');
    expect((await org.owner.api.get(`/runs/${run.id}`)).body.data.attributes.status).toBe('pending');
    // Still takes a good document afterwards.
    expect((await putPlan(org.owner.api, planId, planJson(['aws_instance']))).status).toBe(200);
  });

  it('over PLAN_MAX_BYTES is 413 (the request is cut short) and changes nothing', {
    timeout: 60_000,
  }, async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const run = await createRun(org.owner.api, ws.id);
    const planId = await planOf(run.id);
    const huge = Buffer.alloc(PLAN_MAX_BYTES + MiB, 0x20);
    huge.write('{"format_version":"1.2","resource_changes":[],"pad":'); // then whitespace, which any JSON may hold
    const res = await putPlan(org.owner.api, planId, huge).catch((err: Error) => ({
      status: 0,
      text: err.message,
      body: undefined,
    }));
    expect(res.status, res.text).toBe(413);
    expect((await org.owner.api.get(`/plans/${planId}`)).body.data.attributes.status).toBe('pending');
  });

  it('a second upload is 409; callers without permission get 404 and change nothing', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const run = await createRun(org.owner.api, ws.id);
    const planId = await planOf(run.id);
    const reader = await createMember(t, org, ['read-runs']);
    const outsider = await createOrganization(t, 'plans-out');

    for (const api of [reader.api, outsider.owner.api]) {
      const denied = await putPlan(api, planId, planJson(['aws_instance']));
      expect(denied.status).toBe(404);
      expect(denied.body).toEqual({ errors: [{ status: '404', code: 'NOT_FOUND', title: 'not found' }] });
    }
    expect((await outsider.owner.api.get(`/plans/${planId}`)).status).toBe(404);
    expect((await t.anonymous.request('PUT', `/plans/${planId}/json-output`, '{}')).status).toBe(401);
    expect((await org.owner.api.get(`/plans/${planId}`)).body.data.attributes.status).toBe('pending');
    expect((await reader.api.get(`/plans/${planId}`)).status).toBe(200);

    const manager = await createMember(t, org, ['manage-workspaces']);
    expect((await putPlan(manager.api, planId, planJson(['aws_instance']))).status).toBe(200);
    const again = await putPlan(org.owner.api, planId, planJson(['aws_s3_bucket']));
    expect(again.status).toBe(409);
    expect(again.body.errors[0].detail).toMatch(/already has its JSON output/);
    expect((await org.owner.api.get(`/plans/${planId}/json-output`)).text).toBe(
      planJson(['aws_instance']).toString(),
    );
  });

  it('a plan of a run that ended first cannot arrive (409), and shows errored', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const run = await createRun(org.owner.api, ws.id);
    const planId = await planOf(run.id);
    const internal = internalRunsApi(t);
    try {
      await internal.executor.ReportRunErrored({ runId: run.id, message: 'terraform init failed' });
    } finally {
      internal.close();
    }
    expect((await putPlan(org.owner.api, planId, planJson(['aws_instance']))).status).toBe(409);
    const plan = (await org.owner.api.get(`/plans/${planId}`)).body.data;
    expect(plan.attributes.status).toBe('errored');
    expect(plan.attributes['status-timestamps']).toHaveProperty('errored-at');
  });
});
