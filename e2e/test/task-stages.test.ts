import { chmodSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from './support/api.js';
import { tarGzOf } from './support/archives.js';
import { startEvaluatorWorker, type WorkerProcess } from './support/evaluator-worker.js';
import {
  createMember,
  createOrganization,
  createPolicy,
  createPolicySet,
  createWorkspace,
  type TestUser,
} from './support/fixtures.js';
import { createRun, type InternalRunsApi, internalRunsApi, planJson } from './support/runs.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/*
 * kind_b (OPA) sets and agent-enabled kind_a sets are enforced through a run's task stage, its
 * policy evaluations and their policy set outcomes, over HTTP, with the evaluator worker in its
 * own process. The real `opa` binary cannot be downloaded where these tests run, so OPA_BIN
 * points at a STAND-IN (services/evaluator/test/support/opa-standin.mjs): it answers the exact
 * command lines the OPA adapter runs and evaluates a tiny, documented subset of Rego. Sentinel is
 * the Sentinel stand-in of the other suites (support/engines/sentinel-standin/sentinel).
 */
const OPA_STANDIN = fileURLToPath(
  new URL('../../services/evaluator/test/support/opa-standin.mjs', import.meta.url),
);
const SENTINEL_STANDIN = fileURLToPath(
  new URL('./support/engines/sentinel-standin/sentinel', import.meta.url),
);

/** Upstream's example policy, v0 syntax (as go-tfe's own tests write Rego): no public buckets. */
const V0_NO_BUCKETS = `package terraform.policies

import input.plan as plan

deny[msg] {
  r := plan.resource_changes[_]
  r.type == "aws_s3_bucket"
  msg := sprintf("%v is a bucket", [r.address])
}
`;

/** The same kind of rule in v1 syntax, for IAM users, with a print() line. */
const V1_NO_IAM_USERS = `package terraform.policies.iam

deny contains msg if {
  r := input.plan.resource_changes[_]
  r.type == "aws_iam_user"
  print("checked", r.address)
  msg := sprintf("%v is an IAM user", [r.address])
}
`;

/** A rule on the run rather than the plan: destroy runs are refused. */
const V1_NO_DESTROY = `package terraform.policies.destroy

deny contains msg if {
  input.run.is_destroy == true
  msg := "destroy runs need a change ticket"
}
`;

let t: TestSystem;
let internal: InternalRunsApi;
let org: Awaited<ReturnType<typeof createOrganization>>;
let reader: TestUser;
let approver: TestUser;
let outsider: Awaited<ReturnType<typeof createOrganization>>;
beforeAll(async () => {
  chmodSync(OPA_STANDIN, 0o755);
  t = await startTestSystem();
  internal = internalRunsApi(t);
  org = await createOrganization(t, 'stages');
  outsider = await createOrganization(t, 'elsewhere');
  reader = await createMember(t, org, ['read-runs']);
  approver = await createMember(t, org, ['read-runs', 'manage-policy-overrides']);
});
afterAll(async () => {
  internal?.close();
  await t?.stop();
});

type Level = 'advisory' | 'mandatory';

/** A kind_b policy with its Rego uploaded. */
async function opaPolicy(api: ApiClient, code: string, query: string, level: Level) {
  const policy = await createPolicy(api, org.name, { kind: 'kind_b', query, 'enforcement-level': level });
  const upload = await api.put(`/policies/${policy.id}/upload`, Buffer.from(code), {
    'content-type': 'application/octet-stream',
  });
  expect(upload.status, upload.text).toBeLessThan(300);
  return policy;
}

/** A workspace guarded by kind_b sets of individual policies. */
async function opaWorkspace(
  sets: Array<{ overridable?: boolean; policies: Array<{ code: string; query: string; level: Level }> }>,
) {
  const workspace = await createWorkspace(org.owner.api, org.name);
  const created = [];
  for (const s of sets) {
    const policies = [];
    for (const p of s.policies) policies.push(await opaPolicy(org.owner.api, p.code, p.query, p.level));
    created.push(
      await createPolicySet(
        org.owner.api,
        org.name,
        { kind: 'kind_b', overridable: s.overridable ?? false },
        { policies: policies.map((p) => p.id), workspaces: [workspace.id] },
      ),
    );
  }
  return { workspace, sets: created };
}

/** A run whose plan creates these resource types; its (single) task stage id. */
async function plannedRun(
  workspaceId: string,
  resourceTypes: string[],
  attributes: Record<string, unknown> = {},
) {
  const run = await createRun(org.owner.api, workspaceId, attributes);
  const res = await internal.executor.ReportPlanFinished({
    runId: run.id,
    planJson: planJson(resourceTypes),
  });
  expect(res.run!.policyCheckIds).toEqual([]);
  expect(res.run!.taskStageIds).toHaveLength(1);
  return { runId: run.id, stageId: res.run!.taskStageIds[0]! };
}

/** The stage once its evaluations are decided (the worker runs in another process). */
const settled = (stageId: string, worker?: WorkerProcess) =>
  waitFor(
    async () => {
      const stage = (await org.owner.api.get(`/task-stages/${stageId}?include=policy_evaluations`)).body;
      return stage.data.attributes.status !== 'running' && stage;
    },
    45_000,
    100,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\nworker output:\n${worker?.output() ?? ''}`);
  });

const runStatus = async (runId: string) =>
  (await org.owner.api.get(`/runs/${runId}`)).body.data.attributes.status as string;

/** The outcomes of the stage's first evaluation. */
async function outcomesOf(stageId: string, query = '') {
  const evaluations = await org.owner.api.get(`/task-stages/${stageId}/policy-evaluations`);
  expect(evaluations.status, evaluations.text).toBe(200);
  const evaluation = evaluations.body.data[0];
  const res = await org.owner.api.get(`/policy-evaluations/${evaluation.id}/policy-set-outcomes${query}`);
  expect(res.status, res.text).toBe(200);
  return {
    evaluation,
    outcomes: res.body.data as Array<{ id: string; attributes: Record<string, unknown> & { outcomes: any } }>,
  };
}

describe('without an engine for a kind', () => {
  let worker: WorkerProcess;
  beforeAll(() => {
    worker = startEvaluatorWorker({
      RUNS_ADDR: internal.address,
      EVALUATOR_TOKEN: internal.evaluatorToken,
      EVALUATOR_ID: 'e2e-no-opa',
      OPA_BIN: '/nonexistent/opa',
      SENTINEL_BIN: SENTINEL_STANDIN,
    });
  });
  afterAll(() => worker?.stop());

  it('errors the evaluation with how to install OPA, and stops the run', { timeout: 90_000 }, async () => {
    const { workspace } = await opaWorkspace([
      { policies: [{ code: V0_NO_BUCKETS, query: 'data.terraform.policies.deny', level: 'advisory' }] },
    ]);
    const { runId, stageId } = await plannedRun(workspace.id, ['aws_instance']);
    const stage = await settled(stageId, worker);
    expect(stage.data.attributes.status).toBe('errored');
    expect(stage.included[0].attributes.status).toBe('errored');
    expect(await runStatus(runId)).toBe('errored');
    const { outcomes } = await outcomesOf(stageId);
    expect(outcomes[0]!.attributes.error).toMatch(/no policy engine for kind_b .*OPA_BIN/);
  });
});

describe('with the OPA and Sentinel engines', () => {
  let worker: WorkerProcess;
  beforeAll(() => {
    worker = startEvaluatorWorker({
      RUNS_ADDR: internal.address,
      EVALUATOR_TOKEN: internal.evaluatorToken,
      EVALUATOR_ID: 'e2e-opa',
      OPA_BIN: OPA_STANDIN,
      SENTINEL_BIN: SENTINEL_STANDIN,
    });
  });
  afterAll(() => worker?.stop());

  it('passes, counts advisory failures, and shows the stage on the run', { timeout: 90_000 }, async () => {
    const { workspace } = await opaWorkspace([
      {
        policies: [
          { code: V0_NO_BUCKETS, query: 'data.terraform.policies.deny', level: 'mandatory' },
          { code: V1_NO_IAM_USERS, query: 'data.terraform.policies.iam.deny', level: 'advisory' },
        ],
      },
    ]);
    const clean = await plannedRun(workspace.id, ['aws_instance']);
    const advisory = await plannedRun(workspace.id, ['aws_iam_user']);

    const cleanStage = await settled(clean.stageId, worker);
    expect(cleanStage.data.attributes.status).toBe('passed');
    expect(cleanStage.included[0].attributes).toMatchObject({
      status: 'passed',
      'policy-kind': 'kind_b',
      'result-count': { 'advisory-failed': 0, 'mandatory-failed': 0, passed: 2, errored: 0 },
    });
    expect(await runStatus(clean.runId)).toBe('post_plan_completed');

    expect((await settled(advisory.stageId, worker)).data.attributes.status).toBe('passed');
    expect(await runStatus(advisory.runId)).toBe('post_plan_completed');
    const { outcomes } = await outcomesOf(advisory.stageId);
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]!.attributes['result-count']).toEqual({
      'advisory-failed': 1,
      'mandatory-failed': 0,
      passed: 1,
      errored: 0,
    });
    expect(outcomes[0]!.attributes.result_count).toEqual(outcomes[0]!.attributes['result-count']);
    const iam = outcomes[0]!.attributes.outcomes.find(
      (o: { query: string }) => o.query === 'data.terraform.policies.iam.deny',
    );
    expect(iam).toMatchObject({ enforcement_level: 'advisory', status: 'failed' });
    expect(iam.output.map((o: { print: string }) => o.print)).toContain('aws_iam_user.r0 is an IAM user');

    const run = await org.owner.api.get(`/runs/${advisory.runId}?include=task_stages`);
    expect(run.status, run.text).toBe(200);
    expect(run.body.data.relationships['task-stages'].data).toEqual([
      { id: advisory.stageId, type: 'task-stages' },
    ]);
    expect(run.body.included.map((r: { type: string }) => r.type)).toEqual(['task-stages']);
  });

  it('waits for an override after a mandatory failure in an overridable set; overrides with and without a comment', {
    timeout: 90_000,
  }, async () => {
    const { workspace } = await opaWorkspace([
      {
        overridable: true,
        policies: [{ code: V0_NO_BUCKETS, query: 'data.terraform.policies.deny', level: 'mandatory' }],
      },
    ]);
    const withComment = await plannedRun(workspace.id, ['aws_s3_bucket']);
    const withoutComment = await plannedRun(workspace.id, ['aws_s3_bucket']);
    const stage = await settled(withComment.stageId, worker);
    expect(stage.data.attributes).toMatchObject({
      status: 'awaiting_override',
      actions: { 'is-overridable': true },
      permissions: { 'can-override-policy': true },
    });
    expect(await runStatus(withComment.runId)).toBe('post_plan_awaiting_decision');
    const { outcomes } = await outcomesOf(withComment.stageId);
    expect(outcomes[0]!.attributes.outcomes[0]).toMatchObject({
      enforcement_level: 'mandatory',
      status: 'failed',
      output: [{ print: 'aws_s3_bucket.r0 is a bucket' }],
    });

    // A reader who may not override sees the stage but not the action: 404, nothing changes.
    const refused = await reader.api.post(`/task-stages/${withComment.stageId}/actions/override`, {});
    expect(refused.status, refused.text).toBe(404);
    expect(await runStatus(withComment.runId)).toBe('post_plan_awaiting_decision');

    const overridden = await approver.api.post(`/task-stages/${withComment.stageId}/actions/override`, {
      comment: 'accepted by the change board',
    });
    expect(overridden.status, overridden.text).toBe(200);
    expect(overridden.body.data.attributes.status).toBe('passed');
    expect(await runStatus(withComment.runId)).toBe('post_plan_completed');
    const events = (await org.owner.api.get(`/runs/${withComment.runId}/run-events`)).body.data;
    const event = events.find(
      (e: { attributes: { action: string } }) => e.attributes.action === 'policy-overridden',
    );
    expect(event.attributes.description).toBe('accepted by the change board');
    expect(event.relationships.actor.data.id).toBe(approver.id);
    expect(event.relationships['task-stage'].data.id).toBe(withComment.stageId);
    const evaluation = (await org.owner.api.get(`/task-stages/${withComment.stageId}/policy-evaluations`))
      .body.data[0];
    expect(evaluation.attributes.status).toBe('overridden');

    const again = await approver.api.post(`/task-stages/${withComment.stageId}/actions/override`, {});
    expect(again.status, again.text).toBe(409);

    await settled(withoutComment.stageId, worker);
    const plain = await approver.api.post(`/task-stages/${withoutComment.stageId}/actions/override`);
    expect(plain.status, plain.text).toBe(200);
    expect(await runStatus(withoutComment.runId)).toBe('post_plan_completed');
  });

  it('stops the run after a mandatory failure in a set that allows no override', {
    timeout: 90_000,
  }, async () => {
    const { workspace } = await opaWorkspace([
      { policies: [{ code: V0_NO_BUCKETS, query: 'data.terraform.policies.deny', level: 'mandatory' }] },
    ]);
    const { runId, stageId } = await plannedRun(workspace.id, ['aws_s3_bucket']);
    expect((await settled(stageId, worker)).data.attributes.status).toBe('failed');
    expect(await runStatus(runId)).toBe('errored');
    const override = await approver.api.post(`/task-stages/${stageId}/actions/override`, {});
    expect(override.status, override.text).toBe(409);
  });

  it("tells OPA whether the run is a destroy run (input.run.is_destroy, from the run's is-destroy)", {
    timeout: 90_000,
  }, async () => {
    const { workspace } = await opaWorkspace([
      {
        policies: [
          { code: V1_NO_DESTROY, query: 'data.terraform.policies.destroy.deny', level: 'mandatory' },
        ],
      },
    ]);
    const destroy = await plannedRun(workspace.id, ['aws_instance'], { 'is-destroy': true });
    const plain = await plannedRun(workspace.id, ['aws_instance']);
    const shown = await org.owner.api.get(`/runs/${destroy.runId}`);
    expect(shown.body.data.attributes['is-destroy']).toBe(true);
    expect((await org.owner.api.get(`/runs/${plain.runId}`)).body.data.attributes['is-destroy']).toBe(false);

    expect((await settled(destroy.stageId, worker)).data.attributes.status).toBe('failed');
    const { outcomes } = await outcomesOf(destroy.stageId);
    expect(outcomes[0]!.attributes.outcomes[0]).toMatchObject({
      status: 'failed',
      output: [{ print: 'destroy runs need a change ticket' }],
    });
    expect((await settled(plain.stageId, worker)).data.attributes.status).toBe('passed');
  });

  it('evaluates two OPA sets in one evaluation with two outcomes, which filters select', {
    timeout: 90_000,
  }, async () => {
    const { workspace, sets } = await opaWorkspace([
      { policies: [{ code: V0_NO_BUCKETS, query: 'data.terraform.policies.deny', level: 'mandatory' }] },
      { policies: [{ code: V1_NO_IAM_USERS, query: 'data.terraform.policies.iam.deny', level: 'advisory' }] },
    ]);
    const { stageId } = await plannedRun(workspace.id, ['aws_iam_user']);
    const stage = await settled(stageId, worker);
    expect(stage.data.relationships['policy-evaluations'].data).toHaveLength(1);
    const all = await outcomesOf(stageId);
    expect(all.outcomes.map((o) => o.attributes['policy-set-name']).sort()).toEqual(
      sets.map((s) => s.attributes.name).sort(),
    );
    const failed = await outcomesOf(stageId, '?filter%5B0%5D%5Bstatus%5D=failed');
    expect(failed.outcomes.map((o) => o.attributes['policy-set-name'])).toEqual([sets[1]!.attributes.name]);
    const either = await outcomesOf(
      stageId,
      '?filter%5B0%5D%5Bstatus%5D=failed&filter%5B0%5D%5BenforcementLevel%5D=mandatory&filter%5B1%5D%5Benforcement_level%5D=advisory',
    );
    expect(either.outcomes).toHaveLength(1);
    const one = await org.owner.api.get(`/policy-set-outcomes/${failed.outcomes[0]!.id}`);
    expect(one.status, one.text).toBe(200);
    expect(one.body.data.relationships['policy-evaluation'].data.id).toBe(all.evaluation.id);
    const bad = await org.owner.api.get(
      `/policy-evaluations/${all.evaluation.id}/policy-set-outcomes?filter%5B0%5D%5Bstatus%5D=maybe`,
    );
    expect(bad.status, bad.text).toBe(422);
  });

  it('evaluates a versioned OPA set from its policies.hcl', { timeout: 90_000 }, async () => {
    const workspace = await createWorkspace(org.owner.api, org.name);
    const set = await createPolicySet(
      org.owner.api,
      org.name,
      { kind: 'kind_b' },
      { workspaces: [workspace.id] },
    );
    const archive = await tarGzOf([
      {
        name: 'policies.hcl',
        content: `policy "no_buckets" {
  query             = "data.terraform.policies.deny"
  enforcement_level = "advisory"
  description       = "No buckets"
}
`,
      },
      { name: 'rules/buckets.rego', content: V0_NO_BUCKETS },
    ]);
    const version = await org.owner.api.post(`/policy-sets/${set.id}/versions`);
    expect(version.status, version.text).toBe(201);
    const put = await fetch(version.body.data.links.upload as string, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream' },
      body: new Uint8Array(archive),
    });
    expect(put.status, await put.text()).toBeLessThan(300);
    await waitFor(
      async () =>
        (await org.owner.api.get(`/policy-set-versions/${version.body.data.id}`)).body.data.attributes
          .status === 'ready',
      20_000,
      50,
    );
    const { stageId } = await plannedRun(workspace.id, ['aws_s3_bucket']);
    expect((await settled(stageId, worker)).data.attributes.status).toBe('passed');
    const { outcomes } = await outcomesOf(stageId);
    expect(outcomes[0]!.attributes.outcomes).toEqual([
      {
        policy_name: 'no_buckets',
        enforcement_level: 'advisory',
        query: 'data.terraform.policies.deny',
        status: 'failed',
        description: 'No buckets',
        output: [{ print: 'aws_s3_bucket.r0 is a bucket' }],
      },
    ]);
  });

  it('evaluates agent-enabled kind_a sets as a kind_a evaluation with mandatory levels', {
    timeout: 90_000,
  }, async () => {
    const workspace = await createWorkspace(org.owner.api, org.name);
    const policy = await createPolicy(org.owner.api, org.name, { 'enforcement-level': 'soft-mandatory' });
    const upload = await org.owner.api.put(
      `/policies/${policy.id}/upload`,
      Buffer.from('import "tfplan/v2" as tfplan\n\nforbidden_types = ["aws_s3_bucket"]\n'),
      { 'content-type': 'application/octet-stream' },
    );
    expect(upload.status, upload.text).toBeLessThan(300);
    await createPolicySet(
      org.owner.api,
      org.name,
      { 'agent-enabled': true, overridable: true },
      { policies: [policy.id], workspaces: [workspace.id] },
    );
    const { runId, stageId } = await plannedRun(workspace.id, ['aws_s3_bucket']);
    const stage = await settled(stageId, worker);
    expect(stage.included[0].attributes['policy-kind']).toBe('kind_a');
    expect(stage.data.attributes.status).toBe('awaiting_override');
    expect(await runStatus(runId)).toBe('post_plan_awaiting_decision');
    const { outcomes } = await outcomesOf(stageId);
    expect(outcomes[0]!.attributes.outcomes[0]).toMatchObject({
      policy_name: policy.attributes.name,
      enforcement_level: 'mandatory',
      status: 'failed',
    });
    expect(
      outcomes[0]!.attributes.outcomes[0].output.map((o: { print: string }) => o.print).join('\n'),
    ).toMatch(/aws_s3_bucket\.r0 has forbidden type aws_s3_bucket/);
  });

  it('answers 404 to other organizations for stages, evaluations and outcomes', {
    timeout: 90_000,
  }, async () => {
    const { workspace } = await opaWorkspace([
      { policies: [{ code: V0_NO_BUCKETS, query: 'data.terraform.policies.deny', level: 'advisory' }] },
    ]);
    const { runId, stageId } = await plannedRun(workspace.id, ['aws_instance']);
    await settled(stageId, worker);
    const { evaluation, outcomes } = await outcomesOf(stageId);
    for (const path of [
      `/runs/${runId}/task-stages`,
      `/task-stages/${stageId}`,
      `/task-stages/${stageId}/policy-evaluations`,
      `/policy-evaluations/${evaluation.id}`,
      `/policy-evaluations/${evaluation.id}/policy-set-outcomes`,
      `/policy-set-outcomes/${outcomes[0]!.id}`,
    ]) {
      const res = await outsider.owner.api.get(path);
      expect(res.status, path).toBe(404);
    }
    const override = await outsider.owner.api.post(`/task-stages/${stageId}/actions/override`, {});
    expect(override.status).toBe(404);
  });
});
