import { fileURLToPath } from 'node:url';
import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEvaluatorWorker, type WorkerProcess } from './support/evaluator-worker.js';
import { createOrganization } from './support/fixtures.js';
import { createRun, guardedWorkspace, type InternalRunsApi, internalRunsApi } from './support/runs.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/*
 * Poison never circulates: tenant data the database or the engine cannot take (a NUL in a
 * resource address, engine details nested too deep or too large) ends the check errored, with a
 * message saying why, on the first lease, instead of failing the report with INTERNAL and coming
 * back for every lease. The kind_a engine is the Sentinel STAND-IN (the real CLI cannot be
 * installed here; see support/engines/sentinel-standin/sentinel): its `deep-error` and
 * `huge-error` markers make it report such details. Everything else is real.
 */

const SENTINEL_STANDIN = fileURLToPath(
  new URL('./support/engines/sentinel-standin/sentinel', import.meta.url),
);

let t: TestSystem;
let internal: InternalRunsApi;
let org: Awaited<ReturnType<typeof createOrganization>>;
let worker: WorkerProcess;
beforeAll(async () => {
  t = await startTestSystem();
  internal = internalRunsApi(t);
  org = await createOrganization(t, 'poison');
  worker = startEvaluatorWorker({
    RUNS_ADDR: internal.address,
    EVALUATOR_TOKEN: internal.evaluatorToken,
    SENTINEL_BIN: SENTINEL_STANDIN,
    EVALUATOR_COMMAND: '',
  });
});
afterAll(async () => {
  await worker?.stop();
  internal?.close();
  await t?.stop();
});

const suffix = () => Math.random().toString(36).slice(2, 7);

const forbidding = (type: string, marker = '') => `import "tfplan/v2" as tfplan
${marker}
forbidden_types = ["${type}"]
main = rule { true }
`;

const planWith = (addresses: Array<[type: string, address: string]>) =>
  Buffer.from(
    JSON.stringify({
      format_version: '1.2',
      resource_changes: addresses.map(([type, address]) => ({
        address,
        mode: 'managed',
        type,
        name: 'r',
        change: { actions: ['create'], before: null, after: {} },
      })),
    }),
  );

async function poisonedCheck(marker: string, plan: Buffer) {
  const { workspace } = await guardedWorkspace(org.owner.api, org.name, [
    { name: `guarded-${suffix()}`, level: 'hard-mandatory', code: forbidding('aws_s3_bucket', marker) },
  ]);
  const run = await createRun(org.owner.api, workspace.id);
  const reported = (await internal.executor.ReportPlanFinished({ runId: run.id, planJson: plan })).run!;
  expect(reported.policyCheckIds).toHaveLength(1);
  const checkId = reported.policyCheckIds[0]!;
  const check = await waitFor(
    async () => {
      const c = (await org.owner.api.get(`/policy-checks/${checkId}`)).body.data;
      return c.attributes.status !== 'queued' && c;
    },
    60_000,
    100,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\nworker output:\n${worker.output()}`);
  });
  const { rows } = await t.system.services.runs!.db.query<{ attempts: number }>(
    'SELECT attempts FROM policy_checks WHERE id = $1',
    [checkId],
  );
  return {
    check,
    attempts: rows[0]!.attempts,
    output: (await org.owner.api.get(`/policy-checks/${checkId}/output`)).text,
    run: (await org.owner.api.get(`/runs/${run.id}`)).body.data.attributes,
    events: (
      (await org.owner.api.get(`/runs/${run.id}/run-events`)).body.data as Array<{
        attributes: { action: string; description: string };
      }>
    ).map((e) => e.attributes),
  };
}

describe('poison in the evaluation pipeline', () => {
  it('a NUL in a resource address the engine quotes ends the check errored on the first attempt', {
    timeout: 120_000,
  }, async () => {
    const got = await poisonedCheck('', planWith([['aws_s3_bucket', 'aws_s3_bucket.logs\u0000evil']]));
    expect(got.check.attributes).toMatchObject({ status: 'errored', result: null });
    expect(got.attempts).toBe(1);
    expect(got.output).toContain("the engine's result cannot be stored: its report contains a NUL character");
    expect(got.output).not.toContain('\u0000');
    expect(got.run.status).toBe('errored');
    expect(got.events.filter((e) => e.action === 'errored')).toHaveLength(1);
  });

  it('engine details nested too deep, or too large, end the check errored on the first attempt', {
    timeout: 120_000,
  }, async () => {
    const plan = planWith([['aws_instance', 'aws_instance.web']]);
    const deep = await poisonedCheck('# standin: deep-error', plan);
    expect(deep.check.attributes.status).toBe('errored');
    expect(deep.attempts).toBe(1);
    expect(deep.output).toMatch(/cannot be stored: its details: it nests deeper than 64 levels/);

    const huge = await poisonedCheck('# standin: huge-error', plan);
    expect(huge.check.attributes.status).toBe('errored');
    expect(huge.attempts).toBe(1);
    expect(huge.output).toMatch(/cannot be stored: its details are \d+ bytes of JSON, more than 1048576/);
    expect(huge.run.status).toBe('errored');
  });
});
