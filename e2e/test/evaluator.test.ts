import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FORBIDDEN_TYPES_ENGINE,
  startEvaluatorWorker,
  type WorkerProcess,
} from './support/evaluator-worker.js';
import { createOrganization } from './support/fixtures.js';
import {
  createRun,
  guardedWorkspace,
  type InternalRunsApi,
  internalRunsApi,
  planJson,
} from './support/runs.js';
import { startTestSystem, type TestSystem } from './support/system.js';

let t: TestSystem;
let internal: InternalRunsApi;
let org: Awaited<ReturnType<typeof createOrganization>>;
let dir: string;
beforeAll(async () => {
  t = await startTestSystem();
  internal = internalRunsApi(t);
  org = await createOrganization(t, 'eval');
  dir = mkdtempSync(join(tmpdir(), 'policyhub-evaluator-'));
});
afterAll(async () => {
  internal?.close();
  await t?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const engineCommand = () => JSON.stringify([process.execPath, FORBIDDEN_TYPES_ENGINE]);

/** A workspace guarded by three policies whose code lists forbidden resource types. */
async function guardrails() {
  return guardedWorkspace(org.owner.api, org.name, [
    {
      name: `no-s3-${Math.random().toString(36).slice(2, 7)}`,
      level: 'hard-mandatory',
      code: '# storage\naws_s3_bucket\n',
    },
    {
      name: `no-iam-users-${Math.random().toString(36).slice(2, 7)}`,
      level: 'soft-mandatory',
      code: 'aws_iam_user',
    },
    { name: `no-eips-${Math.random().toString(36).slice(2, 7)}`, level: 'advisory', code: 'aws_eip\n' },
  ]);
}

/** A run on `workspaceId` whose plan creates these resource types; returns its check id. */
async function plannedRun(workspaceId: string, resourceTypes: string[]) {
  const run = await createRun(org.owner.api, workspaceId);
  const res = await internal.executor.ReportPlanFinished({
    runId: run.id,
    planJson: planJson(resourceTypes),
  });
  // A running worker may already be evaluating it: only the check's existence is certain here.
  expect(res.run!.policyCheckIds).toHaveLength(1);
  return { runId: run.id, checkId: res.run!.policyCheckIds[0]! };
}

/** The check once an evaluator decided it (the worker runs in another process). */
const decided = (checkId: string, worker?: WorkerProcess) =>
  waitFor(
    async () => {
      const check = (await org.owner.api.get(`/policy-checks/${checkId}`)).body.data;
      return check.attributes.status !== 'queued' && check;
    },
    45_000,
    100,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\nworker output:\n${worker?.output() ?? ''}`);
  });

const runStatus = async (runId: string) =>
  (await org.owner.api.get(`/runs/${runId}`)).body.data.attributes.status;

describe('evaluator worker with a real engine', () => {
  let worker: WorkerProcess;
  let engineLog: string;
  beforeAll(() => {
    engineLog = join(dir, 'engine.log');
    worker = startEvaluatorWorker({
      RUNS_ADDR: internal.address,
      EVALUATOR_TOKEN: internal.evaluatorToken,
      EVALUATOR_COMMAND: engineCommand(),
      EVALUATOR_ID: 'e2e-worker',
      ENGINE_LOG: engineLog,
    });
  });
  afterAll(() => worker?.stop());

  it('evaluates plans against the policies: pass, advisory, soft and hard failures', {
    timeout: 120_000,
  }, async () => {
    const { workspace } = await guardrails();
    const clean = await plannedRun(workspace.id, ['aws_instance']);
    const advisory = await plannedRun(workspace.id, ['aws_instance', 'aws_eip']);
    const soft = await plannedRun(workspace.id, ['aws_iam_user']);
    const hard = await plannedRun(workspace.id, ['aws_iam_user', 'aws_s3_bucket']);

    const cleanCheck = await decided(clean.checkId, worker);
    expect(cleanCheck.attributes.status).toBe('passed');
    expect(cleanCheck.attributes.result).toMatchObject({
      result: true,
      passed: 3,
      'total-failed': 0,
      kind_a: { engine: 'forbidden-resource-types', rules: 3 },
    });
    expect(cleanCheck.attributes.result['duration-ms']).toBe(cleanCheck.attributes.result.duration);
    expect(await runStatus(clean.runId)).toBe('policy_checked');

    const advisoryCheck = await decided(advisory.checkId, worker);
    expect(advisoryCheck.attributes.status).toBe('passed');
    expect(advisoryCheck.attributes.result).toMatchObject({
      passed: 2,
      'advisory-failed': 1,
      'total-failed': 1,
    });
    expect(await runStatus(advisory.runId)).toBe('policy_checked');

    const softCheck = await decided(soft.checkId, worker);
    expect(softCheck.attributes).toMatchObject({
      status: 'soft_failed',
      actions: { 'is-overridable': true },
    });
    expect(softCheck.attributes.result).toMatchObject({ result: false, 'soft-failed': 1 });
    expect(await runStatus(soft.runId)).toBe('policy_override');

    const hardCheck = await decided(hard.checkId, worker);
    expect(hardCheck.attributes.status).toBe('hard_failed');
    expect(hardCheck.attributes.result).toMatchObject({
      'hard-failed': 1,
      'soft-failed': 1,
      'total-failed': 2,
      passed: 1,
    });
    expect(await runStatus(hard.runId)).toBe('errored');

    const output = await org.owner.api.get(`/policy-checks/${hard.checkId}/output`);
    expect(output.status).toBe(200);
    expect(output.text).toMatch(/^kind_a Result: false\n/);
    expect(output.text).toContain('\n3 policies evaluated.\n');
    expect(output.text).toMatch(
      /## Policy \d: .+\/no-s3-\w+ \(hard-mandatory\)\n\nResult: false\n\nFALSE - no-s3-\w+ - aws_s3_bucket\.r1 has forbidden type aws_s3_bucket/,
    );

    const evaluations = readFileSync(engineLog, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).policy_check_id);
    expect(evaluations.sort()).toEqual([clean.checkId, advisory.checkId, soft.checkId, hard.checkId].sort());
  });
});

describe('evaluator failures', () => {
  it('an engine that fails makes the check and the run errored, with its stderr in the output', {
    timeout: 60_000,
  }, async () => {
    const failing = JSON.stringify([
      process.execPath,
      '-e',
      "process.stderr.write('engine exploded'); process.exit(3)",
    ]);
    const worker = startEvaluatorWorker({
      RUNS_ADDR: internal.address,
      EVALUATOR_TOKEN: internal.evaluatorToken,
      EVALUATOR_COMMAND: failing,
    });
    try {
      const { workspace } = await guardrails();
      const { runId, checkId } = await plannedRun(workspace.id, ['aws_instance']);
      const check = await decided(checkId, worker);
      expect(check.attributes).toMatchObject({ status: 'errored', result: null });
      expect(check.attributes['status-timestamps']).toHaveProperty('errored-at');
      expect(await runStatus(runId)).toBe('errored');
      const output = await org.owner.api.get(`/policy-checks/${checkId}/output`);
      expect(output.text).toContain('the engine exited with status 3');
      expect(output.text).toContain('engine exploded');
    } finally {
      await worker.stop();
    }
  });

  it('a crashed evaluator: its lease expires and another worker evaluates the check exactly once', {
    timeout: 120_000,
  }, async () => {
    const { workspace } = await guardrails();
    const { runId, checkId } = await plannedRun(workspace.id, ['aws_iam_user']);
    const hangMarker = join(dir, 'hanging');
    const crashing = startEvaluatorWorker({
      RUNS_ADDR: internal.address,
      EVALUATOR_TOKEN: internal.evaluatorToken,
      EVALUATOR_COMMAND: engineCommand(),
      EVALUATOR_LEASE_SECONDS: '2',
      ENGINE_HANG: hangMarker,
    });
    // The first worker claimed the check and its engine is running...
    await waitFor(async () => existsSync(hangMarker), 45_000, 50).catch((err: Error) => {
      throw new Error(`${err.message}\nworker output:\n${crashing.output()}`);
    });
    expect(readFileSync(hangMarker, 'utf8')).toBe(checkId);
    // ...when it dies with its engine, never reporting anything.
    await crashing.kill();
    expect((await org.owner.api.get(`/policy-checks/${checkId}`)).body.data.attributes.status).toBe('queued');

    const engineLog = join(dir, 'takeover.log');
    const takeover = startEvaluatorWorker({
      RUNS_ADDR: internal.address,
      EVALUATOR_TOKEN: internal.evaluatorToken,
      EVALUATOR_COMMAND: engineCommand(),
      ENGINE_LOG: engineLog,
    });
    try {
      const check = await decided(checkId, takeover);
      expect(check.attributes.status).toBe('soft_failed');
      expect(await runStatus(runId)).toBe('policy_override');
    } finally {
      await takeover.stop();
    }
    const evaluations = readFileSync(engineLog, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).policy_check_id);
    expect(evaluations).toEqual([checkId]);
  });
});
