import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RunningSystem, startSystem } from '@policyhub/embedded';
import { createTestDatabase, type TestDatabase, waitFor } from '@policyhub/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from './support/api.js';
import { createOrganization, createPolicy, createPolicySet, createWorkspace } from './support/fixtures.js';
import { createRun, guardedWorkspace, planJson } from './support/runs.js';
import { contracts } from '@policyhub/contracts';
import { createClient, workerCredential } from '@policyhub/grpc-runtime';

/*
 * The system as `npm start` runs it, with its built-in evaluator (an in-process worker). The
 * engines are looked up in the environment given to it: first a PATH without any `sentinel`,
 * then the test STAND-IN for the Sentinel CLI (support/engines/sentinel-standin/sentinel; the
 * real binary cannot be installed here) on PATH. The plan comes in through the gRPC executor API.
 */

const STANDIN_DIR = dirname(
  fileURLToPath(new URL('./support/engines/sentinel-standin/sentinel', import.meta.url)),
);

let system: RunningSystem | undefined;
let db: TestDatabase | undefined;
let dataDir: string | undefined;
let policies = 0;
afterEach(async () => {
  await system?.close();
  await db?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  system = undefined;
  db = undefined;
});

async function start(path: string, pollIntervalMs = 50) {
  db = await createTestDatabase('ph_e2e_embedded_eval');
  dataDir = mkdtempSync(join(tmpdir(), 'policyhub-embedded-eval-'));
  system = await startSystem({
    port: 0,
    validateResponses: true,
    dataDir,
    databaseUrl: db.url,
    logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
    evaluator: { environment: { PATH: path }, pollIntervalMs },
  });
  const t = {
    admin: new ApiClient(system.baseUrl, system.siteAdminToken),
    client: (token: string) => new ApiClient(system!.baseUrl, token),
  };
  const org = await createOrganization(t, 'embedded');
  const executor = createClient(
    contracts().policyhub.runs.v1.RunExecutor,
    system.services.runs!.address,
    workerCredential(system.workerTokens.executor),
  );
  /** A planned run on a workspace guarded by one hard-mandatory policy; the decided check. */
  const verdict = async (resourceTypes: string[]) => {
    const { workspace } = await guardedWorkspace(org.owner.api, org.name, [
      {
        name: `no-s3-${++policies}`,
        level: 'hard-mandatory',
        code: 'import "tfplan/v2" as tfplan\nforbidden_types = ["aws_s3_bucket"]\nmain = rule { true }\n',
      },
    ]);
    const run = await createRun(org.owner.api, workspace.id);
    try {
      const reported = await executor.ReportPlanFinished({
        runId: run.id,
        planJson: planJson(resourceTypes),
      });
      const checkId = reported.run!.policyCheckIds[0]!;
      const check = await waitFor(
        async () => {
          const c = (await org.owner.api.get(`/policy-checks/${checkId}`)).body.data;
          return c.attributes.status !== 'queued' && c;
        },
        45_000,
        100,
      );
      const output = (await org.owner.api.get(`/policy-checks/${checkId}/output`)).text;
      const runStatus = (await org.owner.api.get(`/runs/${run.id}`)).body.data.attributes.status;
      return { check, output, runStatus };
    } finally {
      executor.close();
    }
  };
  /** A planned run on a workspace guarded only by a kind_b set; its decided task stage. */
  const stageVerdict = async () => {
    const workspace = await createWorkspace(org.owner.api, org.name);
    const policy = await createPolicy(org.owner.api, org.name, {
      kind: 'kind_b',
      query: 'data.terraform.deny',
      'enforcement-level': 'mandatory',
    });
    await createPolicySet(
      org.owner.api,
      org.name,
      { kind: 'kind_b' },
      {
        policies: [policy.id],
        workspaces: [workspace.id],
      },
    );
    const run = await createRun(org.owner.api, workspace.id);
    const stageExecutor = createClient(
      contracts().policyhub.runs.v1.RunExecutor,
      system!.services.runs!.address,
      workerCredential(system!.workerTokens.executor),
    );
    try {
      const reported = await stageExecutor.ReportPlanFinished({
        runId: run.id,
        planJson: planJson(['aws_s3_bucket']),
      });
      const stageId = reported.run!.taskStageIds[0]!;
      const stage = await waitFor(
        async () => {
          const s = (await org.owner.api.get(`/task-stages/${stageId}?include=policy_evaluations`)).body;
          return s.data.attributes.status !== 'running' && s;
        },
        45_000,
        100,
      );
      const evaluationId = stage.data.relationships['policy-evaluations'].data[0].id;
      const outcomes = (await org.owner.api.get(`/policy-evaluations/${evaluationId}/policy-set-outcomes`))
        .body.data;
      const runStatus = (await org.owner.api.get(`/runs/${run.id}`)).body.data.attributes.status;
      return { stage: stage.data, outcomes, runStatus };
    } finally {
      stageExecutor.close();
    }
  };
  return { verdict, stageVerdict };
}

describe('npm start: the built-in evaluator', () => {
  it('with no engine installed, a check ends errored saying which engine is missing and how to install it', {
    timeout: 90_000,
  }, async () => {
    const empty = mkdtempSync(join(tmpdir(), 'policyhub-no-engines-'));
    try {
      const { verdict, stageVerdict } = await start(empty);
      expect(system!.evaluatorEngines?.[0]).toMatch(
        /^kind_a: no engine \(SENTINEL_BIN is not set and there is no `sentinel` executable on PATH\)/,
      );
      const { check, output, runStatus } = await verdict(['aws_s3_bucket']);
      expect(check.attributes.status).toBe('errored');
      expect(output).toContain('no policy engine for kind_a (Sentinel) policy sets');
      expect(output).toContain('Install it');
      expect(runStatus).toBe('errored');

      // A workspace guarded only by an OPA set does not pass either: its task stage errors.
      expect(system!.evaluatorEngines?.[1]).toMatch(
        /^kind_b: no engine \(.*\); policy evaluations of kind_b sets end errored/,
      );
      const opa = await stageVerdict();
      expect(opa.stage.attributes.status).toBe('errored');
      expect(opa.outcomes[0].attributes.error).toMatch(
        /no policy engine for kind_b \(OPA\) policy sets.*Install it/,
      );
      expect(opa.runStatus).toBe('errored');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('with the (stand-in) Sentinel CLI on PATH, a check reaches a verdict', { timeout: 90_000 }, async () => {
    const { verdict } = await start(STANDIN_DIR);
    expect(system!.evaluatorEngines?.[0]).toBe(
      `kind_a: Sentinel CLI ${join(STANDIN_DIR, 'sentinel')} (Sentinel v0.0.0-policyhub-standin)`,
    );
    const failing = await verdict(['aws_s3_bucket']);
    expect(failing.check.attributes.status, failing.output).toBe('hard_failed');
    expect(failing.output).toContain('1 policies evaluated.');
    expect(failing.runStatus).toBe('errored');
  });

  it('a plan wakes the evaluator: its check is decided long before the next poll would have claimed it', {
    timeout: 90_000,
  }, async () => {
    // Polling once an hour: only runs' notification of the queued check can start the engine.
    const { verdict } = await start(STANDIN_DIR, 3_600_000);
    const { check, output, runStatus } = await verdict(['aws_instance']);
    expect(check.attributes.status, output).toBe('passed');
    expect(runStatus).toBe('policy_checked');
  });
});
