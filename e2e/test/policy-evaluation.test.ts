import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tarGzOf } from './support/archives.js';
import {
  FORBIDDEN_TYPES_ENGINE,
  startEvaluatorWorker,
  type WorkerProcess,
} from './support/evaluator-worker.js';
import { createOrganization } from './support/fixtures.js';
import {
  archivedWorkspace,
  createRun,
  guardedWorkspace,
  type InternalRunsApi,
  internalRunsApi,
  largePlanJson,
  planJson,
  reportPlanStreamed,
} from './support/runs.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/*
 * Plan → check → verdict with the built-in engines, over HTTP (the plan comes in through the
 * gRPC executor API, as an executor brings it). The kind_a engine is the Sentinel CLI; the real
 * binary cannot be installed here (no internet), so these tests put a STAND-IN on SENTINEL_BIN:
 * support/engines/sentinel-standin/sentinel implements the CLI surface the adapter uses
 * (`version`, `apply -json -config=FILE`) and a tiny documented subset of policy evaluation
 * (forbidden resource types read from the generated tfplan/v2 mock). Everything else is real:
 * the worker process, the streams through runs, storage, archives, the HCL parsing, the report.
 */

const SENTINEL_STANDIN = fileURLToPath(
  new URL('./support/engines/sentinel-standin/sentinel', import.meta.url),
);

let t: TestSystem;
let internal: InternalRunsApi;
let org: Awaited<ReturnType<typeof createOrganization>>;
let dir: string;
beforeAll(async () => {
  t = await startTestSystem();
  internal = internalRunsApi(t);
  org = await createOrganization(t, 'engines');
  dir = mkdtempSync(join(tmpdir(), 'policyhub-engines-'));
});
afterAll(async () => {
  internal?.close();
  await t?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const suffix = () => Math.random().toString(36).slice(2, 7);

/** Sentinel source the stand-in understands (and Sentinel would run): forbidden resource types. */
const forbidding = (type: string, extra = '') => `import "tfplan/v2" as tfplan
${extra}
forbidden_types = ["${type}"]

violations = filter tfplan.resource_changes as _, rc {
  rc.type in forbidden_types and (rc.change.actions contains "create" or rc.change.actions contains "update")
}

main = rule { length(violations) is 0 }
`;

/** A run whose plan creates these resource types (or carries `plan`); its check id. */
async function plannedRun(workspaceId: string, resourceTypes: string[], plan?: Buffer) {
  const run = await createRun(org.owner.api, workspaceId);
  const reported = plan
    ? await reportPlanStreamed(internal, run.id, plan)
    : (await internal.executor.ReportPlanFinished({ runId: run.id, planJson: planJson(resourceTypes) })).run!;
  expect(reported.policyCheckIds).toHaveLength(1);
  return { runId: run.id, checkId: reported.policyCheckIds[0]! };
}

const decided = (checkId: string, worker?: WorkerProcess) =>
  waitFor(
    async () => {
      const check = (await org.owner.api.get(`/policy-checks/${checkId}`)).body.data;
      return check.attributes.status !== 'queued' && check;
    },
    60_000,
    100,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\nworker output:\n${worker?.output() ?? ''}`);
  });

const runOf = async (runId: string) => (await org.owner.api.get(`/runs/${runId}`)).body.data.attributes;
const outputOf = async (checkId: string) =>
  (await org.owner.api.get(`/policy-checks/${checkId}/output`)).text;
const runEvents = async (runId: string) =>
  (await org.owner.api.get(`/runs/${runId}/run-events`)).body.data as Array<{
    attributes: Record<string, unknown>;
  }>;

/** Sets policies-path directly in policy-sets' table (see the note in the archive tests). */
const setPoliciesPath = async (setId: string, path: string) => {
  await t.system.services['policy-sets']!.db.query(
    'UPDATE policy_sets.policy_sets SET policies_path = $1 WHERE id = $2',
    [path, setId],
  );
};

describe('kind_a with the Sentinel CLI (stand-in)', () => {
  let worker: WorkerProcess;
  let standinLog: string;
  beforeAll(() => {
    standinLog = join(dir, 'standin.log');
    worker = startEvaluatorWorker({
      RUNS_ADDR: internal.address,
      EVALUATOR_TOKEN: internal.evaluatorToken,
      SENTINEL_BIN: SENTINEL_STANDIN,
      EVALUATOR_COMMAND: '',
      STANDIN_LOG: standinLog,
    });
  });
  afterAll(() => worker?.stop());

  it('individual policies: passing, advisory, soft-failed then overridden with a justification, hard-failed', {
    timeout: 120_000,
  }, async () => {
    const names = { s3: `no-s3-${suffix()}`, iam: `no-iam-${suffix()}`, eip: `no-eip-${suffix()}` };
    const { workspace, set } = await guardedWorkspace(org.owner.api, org.name, [
      { name: names.s3, level: 'hard-mandatory', code: forbidding('aws_s3_bucket') },
      { name: names.iam, level: 'soft-mandatory', code: forbidding('aws_iam_user') },
      { name: names.eip, level: 'advisory', code: forbidding('aws_eip') },
    ]);
    const clean = await plannedRun(workspace.id, ['aws_instance']);
    const advisory = await plannedRun(workspace.id, ['aws_eip']);
    const soft = await plannedRun(workspace.id, ['aws_iam_user']);
    const hard = await plannedRun(workspace.id, ['aws_s3_bucket', 'aws_iam_user']);

    const cleanCheck = await decided(clean.checkId, worker);
    expect(cleanCheck.attributes.status).toBe('passed');
    expect(cleanCheck.attributes.result).toMatchObject({ result: true, passed: 3, 'total-failed': 0 });
    expect(cleanCheck.attributes.result.kind_a).toMatchObject({
      engine: 'sentinel',
      version: 'Sentinel v0.0.0-policyhub-standin',
    });
    expect((await runOf(clean.runId)).status).toBe('policy_checked');

    const advisoryCheck = await decided(advisory.checkId, worker);
    expect(advisoryCheck.attributes.status).toBe('passed');
    expect(advisoryCheck.attributes.result).toMatchObject({ passed: 2, 'advisory-failed': 1 });

    const softCheck = await decided(soft.checkId, worker);
    expect(softCheck.attributes).toMatchObject({
      status: 'soft_failed',
      actions: { 'is-overridable': true },
    });
    expect((await runOf(soft.runId)).status).toBe('policy_override');
    const override = await org.owner.api.post(`/policy-checks/${soft.checkId}/actions/override`, {
      comment: 'accepted for the migration window',
    });
    expect(override.status, override.text).toBe(200);
    expect(override.body.data.attributes.status).toBe('overridden');
    expect((await runOf(soft.runId)).status).toBe('policy_checked');
    expect((await runEvents(soft.runId)).map((e) => e.attributes.description)).toContain(
      'accepted for the migration window',
    );

    const hardCheck = await decided(hard.checkId, worker);
    expect(hardCheck.attributes.status).toBe('hard_failed');
    expect(hardCheck.attributes.result).toMatchObject({ 'hard-failed': 1, 'soft-failed': 1, passed: 1 });
    expect((await runOf(hard.runId)).status).toBe('errored');
    const output = await outputOf(hard.checkId);
    expect(output).toMatch(/^kind_a Result: false\n/);
    expect(output).toContain('\n3 policies evaluated.\n');
    expect(output).toContain(
      `## Policy 1: ${set.attributes.name}/${names.s3}.sentinel (hard-mandatory)\n\nResult: false\n\naws_s3_bucket.r0 has forbidden type aws_s3_bucket\nFALSE - ${names.s3}.sentinel:1:1 - Rule "main"`,
    );
    expect(output).toContain(
      `## Policy 3: ${set.attributes.name}/${names.eip}.sentinel (advisory)\n\nResult: true`,
    );
  });

  it('an archive set at the root: its sentinel.hcl, module and params; one soft-mandatory failure', {
    timeout: 60_000,
  }, async () => {
    const archive = await tarGzOf([
      {
        name: 'sentinel.hcl',
        content: `module "plan-helpers" {
  source = "./modules/plan-helpers.sentinel"
}
policy "restrict-iam" {
  source            = "./policies/restrict-iam.sentinel"
  enforcement_level = "soft-mandatory"
}
policy "restrict-eip" {
  source            = "./policies/restrict-eip.sentinel"
  enforcement_level = "hard-mandatory"
}
param "forbidden_types" {
  value = ["aws_iam_user"]
}
mock "tfplan/v2" {
  module { source = "./testdata/stale-mock.sentinel" }
}
`,
      },
      {
        name: 'modules/plan-helpers.sentinel',
        content: 'func changed(rc) { return rc.change.actions contains "create" }\n',
      },
      {
        name: 'policies/restrict-iam.sentinel',
        content:
          'import "tfplan/v2" as tfplan\nimport "plan-helpers"\n\nparam forbidden_types default []\n\nmain = rule { true }\n',
      },
      { name: 'policies/restrict-eip.sentinel', content: forbidding('aws_eip') },
      // A mock left from local testing: the evaluator must replace it with the run's own plan.
      { name: 'testdata/stale-mock.sentinel', content: 'resource_changes = {}\n' },
    ]);
    const { workspace, set } = await archivedWorkspace(org.owner.api, org.name, archive);
    const soft = await plannedRun(workspace.id, ['aws_iam_user']);
    const check = await decided(soft.checkId, worker);
    expect(check.attributes.status).toBe('soft_failed');
    expect(check.attributes.result).toMatchObject({ passed: 1, 'soft-failed': 1, 'total-failed': 1 });
    const output = await outputOf(soft.checkId);
    expect(output).toContain('\n2 policies evaluated.\n');
    expect(output).toMatch(
      new RegExp(
        `## Policy \\d: ${set.attributes.name}/restrict-iam\\.sentinel \\(soft-mandatory\\)\n\nResult: false\n`,
      ),
    );
    expect((await runOf(soft.runId)).status).toBe('policy_override');
  });

  // policies-path: the API accepts it only on sets with a VCS repository (SPEC), and versions
  // only on sets without one, so no HTTP call can put both on one set today; this test sets the
  // column directly (before the version is created, so the upload is checked and read in that
  // directory) to show how an archive whose policies live in a subdirectory is evaluated.
  it("an archive set with policies-path: only that directory's sentinel.hcl counts", {
    timeout: 60_000,
  }, async () => {
    const archive = await tarGzOf([
      {
        name: 'sentinel.hcl',
        content:
          'policy "decoy" {\n  source = "./decoy.sentinel"\n  enforcement_level = "hard-mandatory"\n}\n',
      },
      { name: 'decoy.sentinel', content: forbidding('aws_instance') },
      {
        name: 'policies/prod/sentinel.hcl',
        content:
          'policy "restrict-s3" {\n  source = "./restrict-s3.sentinel"\n  enforcement_level = "hard-mandatory"\n}\n',
      },
      { name: 'policies/prod/restrict-s3.sentinel', content: forbidding('aws_s3_bucket') },
    ]);
    const { workspace } = await archivedWorkspace(org.owner.api, org.name, archive, {
      policiesPath: 'policies/prod',
      setPoliciesPath,
    });
    const passing = await plannedRun(workspace.id, ['aws_instance']);
    const failing = await plannedRun(workspace.id, ['aws_s3_bucket']);
    expect((await decided(passing.checkId, worker)).attributes).toMatchObject({
      status: 'passed',
      result: { passed: 1, 'total-failed': 0 },
    });
    expect((await decided(failing.checkId, worker)).attributes.status).toBe('hard_failed');
    expect(await outputOf(failing.checkId)).toContain('/restrict-s3.sentinel (hard-mandatory)');
  });

  // Storage reads what the archive declares once, at upload; policy-sets keeps it with the version
  // and runs and the evaluator go by it. An archive never changes once stored, so only an edited
  // record can show that the record, not a second reading of sentinel.hcl, is what counts.
  it('goes by the declaration recorded at upload; one missing is read again from the archive, or the check errors', {
    timeout: 60_000,
  }, async () => {
    const archive = await tarGzOf([
      {
        name: 'sentinel.hcl',
        content:
          'policy "no-s3" {\n  source = "./no-s3.sentinel"\n  enforcement_level = "hard-mandatory"\n}\n',
      },
      { name: 'no-s3.sentinel', content: forbidding('aws_s3_bucket') },
    ]);
    const { workspace, set } = await archivedWorkspace(org.owner.api, org.name, archive);
    const versions = t.system.services['policy-sets']!.db;
    const recorded = await versions.query(
      'SELECT declaration FROM policy_sets.policy_set_versions WHERE policy_set_id = $1',
      [set.id],
    );
    expect(recorded.rows[0]?.declaration).toMatchObject({
      configPath: 'sentinel.hcl',
      policies: [{ name: 'no-s3', enforcementLevel: 'hard-mandatory', source: './no-s3.sentinel' }],
    });
    await versions.query(
      `UPDATE policy_sets.policy_set_versions
          SET declaration = jsonb_set(declaration, '{policies,0,enforcementLevel}', '"advisory"')
        WHERE policy_set_id = $1`,
      [set.id],
    );
    const advisory = await plannedRun(workspace.id, ['aws_s3_bucket']);
    expect((await decided(advisory.checkId, worker)).attributes.status).toBe('passed');
    expect(await outputOf(advisory.checkId)).toContain('/no-s3.sentinel (advisory)');

    // A version that became ready before declarations were recorded: policy-sets' backfill asks
    // storage to read its stored archive again (the service runs a round at start and every
    // minute; the test runs one itself), and its checks go by the archive again.
    const backfill = (
      t.system.services['policy-sets'] as unknown as { declarationBackfill: { runOnce(): Promise<unknown> } }
    ).declarationBackfill;
    const forget = () =>
      versions.query(
        'UPDATE policy_sets.policy_set_versions SET declaration = NULL WHERE policy_set_id = $1',
        [set.id],
      );
    await forget();
    await backfill.runOnce();
    const reread = await versions.query(
      'SELECT declaration, object_key FROM policy_sets.policy_set_versions WHERE policy_set_id = $1',
      [set.id],
    );
    expect(reread.rows[0]?.declaration).toMatchObject({
      policies: [{ name: 'no-s3', enforcementLevel: 'hard-mandatory', source: './no-s3.sentinel' }],
    });
    const backfilled = await plannedRun(workspace.id, ['aws_s3_bucket']);
    expect((await decided(backfilled.checkId, worker)).attributes.status).toBe('hard_failed');
    expect(await outputOf(backfilled.checkId)).toContain('/no-s3.sentinel (hard-mandatory)');

    // One whose archive can no longer be read keeps no declaration: its checks error (never pass)
    // until it is uploaded again.
    const store = (
      t.system.services.storage as unknown as { store: { delete(keys: string[]): Promise<void> } }
    ).store;
    await store.delete([reread.rows[0]?.object_key]);
    await forget();
    await backfill.runOnce();
    const legacy = await plannedRun(workspace.id, ['aws_instance']);
    expect((await decided(legacy.checkId, worker)).attributes.status).toBe('errored');
    expect(await outputOf(legacy.checkId)).toContain(
      `policy set ${set.attributes.name}: its current version was uploaded before PolicyHub recorded what archives declare; upload the version again`,
    );
  });

  it('a plan larger than 8 MiB reaches the engine whole', { timeout: 120_000 }, async () => {
    const { workspace } = await guardedWorkspace(org.owner.api, org.name, [
      { name: `no-s3-${suffix()}`, level: 'hard-mandatory', code: forbidding('aws_s3_bucket') },
    ]);
    const plan = largePlanJson(['aws_s3_bucket'], 9 * 1024 * 1024);
    expect(plan.length).toBeGreaterThan(8 * 1024 * 1024);
    const { checkId } = await plannedRun(workspace.id, [], plan);
    const check = await decided(checkId, worker);
    expect(check.attributes.status).toBe('hard_failed');
    const applies = readFileSync(standinLog, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // The tfplan/v2 mock holds the plan (raw) and its resource changes: more than the plan itself.
    expect(Math.max(...applies.map((a) => a.mock_bytes))).toBeGreaterThan(plan.length);
  });

  it('a crashing engine, and reports that miss, repeat or invent a policy, error the check, naming them', {
    timeout: 120_000,
  }, async () => {
    const cases: Array<[marker: string, expected: RegExp]> = [
      ['crash', /Sentinel exited with status 9 on policy set/],
      ['omit', /no outcome for .+\/guarded-\w+/],
      ['duplicate', /more than one outcome for .+\/guarded-\w+/],
      ['invent', /outcome for policies that are not part of the check: .+\/invented-policy\.sentinel/],
    ];
    for (const [marker, expected] of cases) {
      const { workspace } = await guardedWorkspace(org.owner.api, org.name, [
        {
          name: `guarded-${suffix()}`,
          level: 'soft-mandatory',
          code: `# standin: ${marker}\n${forbidding('aws_eip')}`,
        },
        { name: `other-${suffix()}`, level: 'advisory', code: forbidding('aws_eip') },
      ]);
      const { runId, checkId } = await plannedRun(workspace.id, ['aws_instance']);
      const check = await decided(checkId, worker);
      expect(check.attributes, marker).toMatchObject({ status: 'errored', result: null });
      expect(await outputOf(checkId), marker).toMatch(expected);
      expect((await runOf(runId)).status, marker).toBe('errored');
      expect(
        (await runEvents(runId)).map((e) => String(e.attributes.description)).join('\n'),
        marker,
      ).toMatch(expected);
    }
  });
});

describe('no engine installed', () => {
  it('kind_a checks end errored with what is missing and how to install it; never passed, never left queued', {
    timeout: 60_000,
  }, async () => {
    const worker = startEvaluatorWorker({
      RUNS_ADDR: internal.address,
      EVALUATOR_TOKEN: internal.evaluatorToken,
      EVALUATOR_COMMAND: '',
      SENTINEL_BIN: '',
      PATH: dir, // no `sentinel` there
    });
    try {
      const { workspace } = await guardedWorkspace(org.owner.api, org.name, [
        { name: `no-s3-${suffix()}`, level: 'advisory', code: forbidding('aws_s3_bucket') },
      ]);
      const { runId, checkId } = await plannedRun(workspace.id, ['aws_instance']);
      const check = await decided(checkId, worker);
      expect(check.attributes.status).toBe('errored');
      const output = await outputOf(checkId);
      expect(output).toContain('no policy engine for kind_a (Sentinel) policy sets');
      expect(output).toContain('no `sentinel` executable on PATH');
      expect(output).toContain('SENTINEL_BIN');
      expect((await runOf(runId)).status).toBe('errored');
    } finally {
      await worker.stop();
    }
  });
});

describe('the generic engine command (EVALUATOR_COMMAND) on archive sets', () => {
  const archive = () =>
    tarGzOf([
      {
        name: 'sentinel.hcl',
        content:
          'policy "no-iam" {\n  source = "./no-iam.sentinel"\n  enforcement_level = "soft-mandatory"\n}\npolicy "no-eip" {\n  source = "./no-eip.sentinel"\n}\n',
      },
      { name: 'no-iam.sentinel', content: 'aws_iam_user\n' },
      { name: 'no-eip.sentinel', content: 'aws_eip\n' },
    ]);
  const engine = (env: Record<string, string> = {}) =>
    startEvaluatorWorker({
      RUNS_ADDR: internal.address,
      EVALUATOR_TOKEN: internal.evaluatorToken,
      EVALUATOR_COMMAND: JSON.stringify([process.execPath, FORBIDDEN_TYPES_ENGINE]),
      ...env,
    });

  it('evaluates the policies the archive declares: a soft-mandatory failure is soft_failed, not "0 policies" passed', {
    timeout: 60_000,
  }, async () => {
    const worker = engine();
    try {
      const { workspace } = await archivedWorkspace(org.owner.api, org.name, await archive());
      const { checkId } = await plannedRun(workspace.id, ['aws_iam_user', 'aws_eip']);
      const check = await decided(checkId, worker);
      expect(check.attributes.status).toBe('soft_failed');
      expect(check.attributes.result).toMatchObject({ 'soft-failed': 1, 'advisory-failed': 1, passed: 0 });
      expect(await outputOf(checkId)).toContain('\n2 policies evaluated.\n');
    } finally {
      await worker.stop();
    }
  });

  it('an engine report that leaves out an archive policy errors the check, naming it', {
    timeout: 60_000,
  }, async () => {
    const worker = engine({ ENGINE_REPORT: 'miss' });
    try {
      const { workspace, set } = await archivedWorkspace(org.owner.api, org.name, await archive());
      const { runId, checkId } = await plannedRun(workspace.id, ['aws_instance']);
      const check = await decided(checkId, worker);
      expect(check.attributes.status).toBe('errored');
      // The engine drops the first policy it evaluated, whichever that is.
      expect(await outputOf(checkId)).toMatch(
        new RegExp(`- no outcome for ${set.attributes.name}/no-(iam|eip)\n`),
      );
      expect((await runOf(runId)).status).toBe('errored');
    } finally {
      await worker.stop();
    }
  });

  it('a plan larger than 8 MiB reaches the engine as a file of its full size', {
    timeout: 120_000,
  }, async () => {
    const log = join(dir, 'engine-large.log');
    const worker = engine({ ENGINE_LOG: log });
    try {
      const { workspace } = await archivedWorkspace(org.owner.api, org.name, await archive());
      const plan = largePlanJson(['aws_instance'], 9 * 1024 * 1024);
      const { checkId } = await plannedRun(workspace.id, [], plan);
      expect((await decided(checkId, worker)).attributes.status).toBe('passed');
      const seen = readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(seen).toEqual([expect.objectContaining({ policy_check_id: checkId, plan_bytes: plan.length })]);
    } finally {
      await worker.stop();
    }
  });
});
