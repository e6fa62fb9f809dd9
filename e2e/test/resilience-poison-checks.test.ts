import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEvaluatorWorker, type WorkerProcess } from './support/evaluator-worker.js';
import { createOrganization } from './support/fixtures.js';
import { createRun, guardedWorkspace, type InternalRunsApi, internalRunsApi } from './support/runs.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/*
 * Tenant isolation in the evaluation pipeline (docs/security.md).
 *
 * Poison never circulates: tenant data the database or the engine cannot take (a NUL in a
 * resource address, engine details nested too deep or too large) ends the check errored, with a
 * message saying why, on the first lease, instead of failing the report with INTERNAL and coming
 * back for every lease. And claims are fair: a healthy organization's check is evaluated before
 * an older hostile backlog of such poison drains.
 *
 * The kind_a engine is the Sentinel STAND-IN (the real CLI cannot be installed here; see
 * support/engines/sentinel-standin/sentinel): its `deep-error` and `huge-error` markers make it
 * report such details. Everything else is real.
 */

const SENTINEL_STANDIN = fileURLToPath(
  new URL('./support/engines/sentinel-standin/sentinel', import.meta.url),
);

let t: TestSystem;
let internal: InternalRunsApi;
let org: Awaited<ReturnType<typeof createOrganization>>;
let worker: WorkerProcess | undefined;
let dir: string;
beforeAll(async () => {
  t = await startTestSystem();
  internal = internalRunsApi(t);
  org = await createOrganization(t, 'poison');
  dir = mkdtempSync(join(tmpdir(), 'policyhub-poison-'));
});
afterAll(async () => {
  await worker?.stop();
  internal?.close();
  await t?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const startWorker = (env: Record<string, string> = {}) => {
  worker = startEvaluatorWorker({
    RUNS_ADDR: internal.address,
    EVALUATOR_TOKEN: internal.evaluatorToken,
    SENTINEL_BIN: SENTINEL_STANDIN,
    EVALUATOR_COMMAND: '',
    ...env,
  });
};

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

type Organization = Awaited<ReturnType<typeof createOrganization>>;

/** A queued check of `owner`'s organization under one hard-mandatory policy named `name`. */
async function queuedCheck(owner: Organization, plan: Buffer, marker = '', name = `guarded-${suffix()}`) {
  const { workspace } = await guardedWorkspace(owner.owner.api, owner.name, [
    { name, level: 'hard-mandatory', code: forbidding('aws_s3_bucket', marker) },
  ]);
  const run = await createRun(owner.owner.api, workspace.id);
  const reported = (await internal.executor.ReportPlanFinished({ runId: run.id, planJson: plan })).run!;
  expect(reported.policyCheckIds).toHaveLength(1);
  return { runId: run.id, checkId: reported.policyCheckIds[0]! };
}

const decided = (owner: Organization, checkId: string) =>
  waitFor(
    async () => {
      const c = (await owner.owner.api.get(`/policy-checks/${checkId}`)).body.data;
      return c.attributes.status !== 'queued' && c;
    },
    60_000,
    100,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\nworker output:\n${worker?.output()}`);
  });

async function poisonedCheck(marker: string, plan: Buffer) {
  const { runId, checkId } = await queuedCheck(org, plan, marker);
  const run = { id: runId };
  const check = await decided(org, checkId);
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
  beforeAll(() => startWorker());
  afterAll(async () => {
    await worker?.stop();
    worker = undefined;
  });

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

describe('one organization never delays another', () => {
  it("a healthy organization's check is evaluated before a hostile backlog of poison drains", {
    timeout: 180_000,
  }, async () => {
    const hostile = await createOrganization(t, 'hostile');
    const healthy = await createOrganization(t, 'healthy');
    const poison = planWith([['aws_s3_bucket', 'aws_s3_bucket.x\u0000y']]);
    const backlog = [];
    for (let i = 0; i < 6; i++) backlog.push(await queuedCheck(hostile, poison, '', `hostile-${i}`));
    const mine = await queuedCheck(
      healthy,
      planWith([['aws_instance', 'aws_instance.web']]),
      '',
      'healthy-0',
    );

    // One engine at a time, started once everything is queued: the order of evaluations is the
    // order of claims, which the stand-in's log records (one line per `sentinel apply`).
    const log = join(dir, 'fairness.log');
    startWorker({ EVALUATOR_CONCURRENCY: '1', STANDIN_LOG: log });
    expect((await decided(healthy, mine.checkId)).attributes.status).toBe('passed');
    for (const { checkId } of backlog)
      expect((await decided(hostile, checkId)).attributes.status).toBe('errored');

    const order = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { policies: string[] }).policies.join());
    expect(order).toHaveLength(7);
    // The healthy check was among the first two claims, not behind the six older hostile ones.
    expect(
      order.slice(0, 2).some((p) => p.includes('healthy-0')),
      order.join(' | '),
    ).toBe(true);
  });
});
