import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FORBIDDEN_TYPES_ENGINE,
  startEvaluatorWorker,
  type WorkerProcess,
} from './support/evaluator-worker.js';
import {
  createMember,
  createOrganization,
  createPolicy,
  createPolicySet,
  createWorkspace,
} from './support/fixtures.js';
import { guardedWorkspace, planJson } from './support/runs.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * The `policyhub` command-line gate as a CI job runs it: a child process against a running
 * system (and a real evaluator worker), judged by its exit status, stderr and --json stdout.
 */
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(REPO_ROOT, 'cli/bin/policyhub.mjs');

let t: TestSystem;
let org: Awaited<ReturnType<typeof createOrganization>>;
let worker: WorkerProcess;
let dir: string;
beforeAll(async () => {
  t = await startTestSystem();
  org = await createOrganization(t, 'cli');
  worker = startEvaluatorWorker({
    RUNS_ADDR: t.system.services.runs!.address,
    EVALUATOR_TOKEN: t.system.workerTokens.evaluator,
    EVALUATOR_COMMAND: JSON.stringify([process.execPath, FORBIDDEN_TYPES_ENGINE]),
  });
  dir = mkdtempSync(join(tmpdir(), 'policyhub-cli-'));
});
afterAll(async () => {
  await worker?.stop();
  await t?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function start(
  args: string[],
  env: Record<string, string> = {},
): { child: ChildProcess; done: Promise<Result> } {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      POLICYHUB_ADDRESS: t.system.baseUrl,
      POLICYHUB_TOKEN: org.owner.token,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<Result>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done };
}

/** The control characters (C0 but tab and newline, DEL, C1, bidirectional overrides) in `text`. */
const controls = (text: string) =>
  [...text].filter((c) => {
    const n = c.codePointAt(0)!;
    return (n < 0x20 && n !== 0x09 && n !== 0x0a) || (n >= 0x7f && n <= 0x9f) || (n >= 0x202a && n <= 0x202e);
  });

const policyhub = (args: string[], env: Record<string, string> = {}) => start(args, env).done;

function planFile(types: string[]): string {
  const path = join(dir, `plan-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, planJson(types));
  return path;
}

async function guardrails() {
  const suffix = Math.random().toString(36).slice(2, 7);
  const { workspace } = await guardedWorkspace(org.owner.api, org.name, [
    { name: `no-s3-${suffix}`, level: 'hard-mandatory', code: 'aws_s3_bucket\n' },
    { name: `no-iam-users-${suffix}`, level: 'soft-mandatory', code: 'aws_iam_user\n' },
  ]);
  return { ref: `${org.name}/${workspace.attributes.name as string}`, workspace, suffix };
}

/**
 * A workspace guarded only by a kind_b set (so by a task stage, not a policy check) with one
 * mandatory policy; the worker's engine command evaluates every kind.
 */
async function opaGuarded(overridable: boolean) {
  const workspace = await createWorkspace(org.owner.api, org.name);
  const policy = await createPolicy(org.owner.api, org.name, {
    kind: 'kind_b',
    query: 'data.terraform.deny',
    'enforcement-level': 'mandatory',
  });
  const upload = await org.owner.api.put(`/policies/${policy.id}/upload`, Buffer.from('aws_s3_bucket\n'), {
    'content-type': 'application/octet-stream',
  });
  expect(upload.status, upload.text).toBeLessThan(300);
  const set = await createPolicySet(
    org.owner.api,
    org.name,
    { kind: 'kind_b', overridable },
    { policies: [policy.id], workspaces: [workspace.id] },
  );
  return {
    ref: `${org.name}/${workspace.attributes.name as string}`,
    workspace,
    policyName: policy.attributes.name as string,
    setName: set.attributes.name as string,
  };
}

describe('policyhub check', () => {
  it('exits 0 for a passing plan and reports each policy, with a --json result on stdout', {
    timeout: 90_000,
  }, async () => {
    const { ref, workspace, suffix } = await guardrails();
    const res = await policyhub([
      'check',
      '--workspace',
      ref,
      '--plan',
      planFile(['aws_instance']),
      '--json',
      '--message',
      'CI #42',
    ]);
    expect(res.code, res.stderr).toBe(0);
    const result = JSON.parse(res.stdout);
    expect(result).toMatchObject({
      verdict: 'passed',
      exitCode: 0,
      run: { status: 'policy_checked' },
      plan: { 'resource-additions': 1 },
      policyCheck: { status: 'passed' },
    });
    expect(result.policies).toEqual(
      expect.arrayContaining([
        {
          name: expect.stringMatching(new RegExp(`/no-s3-${suffix}$`)),
          enforcementLevel: 'hard-mandatory',
          passed: true,
        },
        {
          name: expect.stringMatching(new RegExp(`/no-iam-users-${suffix}$`)),
          enforcementLevel: 'soft-mandatory',
          passed: true,
        },
      ]),
    );
    expect(result.output).toContain('2 policies evaluated.');
    expect(res.stderr).toContain(`workspace ${ref} (${workspace.id})`);
    expect(res.stderr).toContain('verdict: passed');
    // The run it created is plan-only by default, with the given message.
    const run = (await org.owner.api.get(`/runs/${result.run.id}`)).body.data;
    expect(run.attributes).toMatchObject({ 'plan-only': true, message: 'CI #42' });
  });

  it('exits 2 for a soft failure and 1 for a hard failure, naming the failed policies', {
    timeout: 90_000,
  }, async () => {
    const { ref, suffix } = await guardrails();
    const soft = await policyhub(['check', '--workspace', ref, '--plan', planFile(['aws_iam_user'])]);
    expect(soft.code, soft.stderr).toBe(2);
    expect(soft.stderr).toMatch(new RegExp(`FAILED {2}\\S+/no-iam-users-${suffix} \\(soft-mandatory\\)`));
    expect(soft.stderr).toContain('--- policy check output ---');
    expect(soft.stdout).toBe('');

    const hard = await policyhub([
      'check',
      '--workspace',
      ref,
      '--plan',
      planFile(['aws_s3_bucket']),
      '--json',
    ]);
    expect(hard.code, hard.stderr).toBe(1);
    expect(JSON.parse(hard.stdout)).toMatchObject({
      verdict: 'hard-failed',
      exitCode: 1,
      run: { status: 'errored' },
    });
  });

  it('with --wait-override waits on a soft failure until someone overrides it, then exits 0', {
    timeout: 90_000,
  }, async () => {
    const { ref, workspace } = await guardrails();
    const cli = start([
      'check',
      '--workspace',
      ref,
      '--plan',
      planFile(['aws_iam_user']),
      '--wait-override',
      '--json',
    ]);
    const run = await waitFor(
      async () => {
        const [newest] = (await org.owner.api.get(`/workspaces/${workspace.id}/runs`)).body.data;
        return newest?.attributes.status === 'policy_override' && newest;
      },
      45_000,
      100,
    );
    expect(run.attributes['plan-only']).toBe(false);
    // The gate is still waiting: a soft failure alone does not end it.
    expect(cli.child.exitCode).toBeNull();
    const checkId = run.relationships['policy-checks'].data[0].id;
    const override = await org.owner.api.post(`/policy-checks/${checkId}/actions/override`, {
      comment: 'Reviewed in CAB-7',
    });
    expect(override.status).toBe(200);
    const res = await cli.done;
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({
      verdict: 'overridden',
      policyCheck: { status: 'overridden' },
    });
  });

  it('prints policy output without the terminal control sequences a plan smuggled into it', {
    timeout: 90_000,
  }, async () => {
    const { ref } = await guardrails();
    // The engine echoes the offending resource's address, which comes from the uploaded plan.
    const address = 'aws_s3_bucket.\u001b]0;owned\u0007x\u001b[2K\u001b[1A\u009b31mpassed\r';
    const path = join(dir, 'hostile-plan.json');
    writeFileSync(
      path,
      JSON.stringify({
        format_version: '1.2',
        resource_changes: [
          {
            address,
            mode: 'managed',
            type: 'aws_s3_bucket',
            name: 'x',
            change: { actions: ['create'], before: null, after: {} },
          },
        ],
      }),
    );
    const human = await policyhub(['check', '--workspace', ref, '--plan', path]);
    expect(human.code, human.stderr).toBe(1);
    expect(human.stderr).toContain('--- policy check output ---');
    expect(human.stderr).toContain('aws_s3_bucket.xpassed has forbidden type aws_s3_bucket');
    expect(controls(human.stderr)).toEqual([]);

    const json = await policyhub(['check', '--workspace', ref, '--plan', path, '--json']);
    expect(json.code, json.stderr).toBe(1);
    expect(controls(json.stdout)).toEqual([]);
    // The document itself keeps the text as the server sent it, escaped.
    expect(JSON.parse(json.stdout).output).toContain('\u001b]0;owned');
  });

  it('covers task stages: a kind_b set passes (0), fails overridably (2) or not (1), printing each set', {
    timeout: 120_000,
  }, async () => {
    const overridable = await opaGuarded(true);
    const passing = await policyhub([
      'check',
      '--workspace',
      overridable.ref,
      '--plan',
      planFile(['aws_instance']),
    ]);
    expect(passing.code, passing.stderr).toBe(0);
    expect(passing.stderr).toMatch(/task stage ts-\S+: passed/);

    const soft = await policyhub([
      'check',
      '--workspace',
      overridable.ref,
      '--plan',
      planFile(['aws_s3_bucket']),
      '--json',
    ]);
    expect(soft.code, soft.stderr).toBe(2);
    expect(soft.stderr).toContain(`policy set ${overridable.setName}`);
    expect(soft.stderr).toContain(`FAILED  ${overridable.policyName} (mandatory)`);
    expect(JSON.parse(soft.stdout)).toMatchObject({
      verdict: 'soft-failed',
      exitCode: 2,
      run: { status: 'policy_soft_failed' },
      taskStage: { status: 'awaiting_override', evaluations: [{ policyKind: 'kind_b', status: 'failed' }] },
    });

    const strict = await opaGuarded(false);
    const hard = await policyhub(['check', '--workspace', strict.ref, '--plan', planFile(['aws_s3_bucket'])]);
    expect(hard.code, hard.stderr).toBe(1);
    expect(hard.stderr).toContain('verdict: hard-failed');
  });

  it('with --wait-override waits on a task stage awaiting an override, then exits 0', {
    timeout: 90_000,
  }, async () => {
    const { ref, workspace } = await opaGuarded(true);
    const cli = start([
      'check',
      '--workspace',
      ref,
      '--plan',
      planFile(['aws_s3_bucket']),
      '--wait-override',
      '--json',
    ]);
    const run = await waitFor(
      async () => {
        const [newest] = (await org.owner.api.get(`/workspaces/${workspace.id}/runs`)).body.data;
        return newest?.attributes.status === 'post_plan_awaiting_decision' && newest;
      },
      45_000,
      100,
    );
    expect(cli.child.exitCode).toBeNull();
    const stageId = run.relationships['task-stages'].data[0].id;
    const override = await org.owner.api.post(`/task-stages/${stageId}/actions/override`, {});
    expect(override.status, override.text).toBe(200);
    const res = await cli.done;
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({
      verdict: 'overridden',
      run: { status: 'post_plan_completed' },
      taskStage: { status: 'passed', evaluations: [{ status: 'overridden' }] },
    });
  });

  it('discards the run it created when no verdict comes in time, unless --keep-run', {
    timeout: 90_000,
  }, async () => {
    const { ref, workspace } = await guardrails();
    const args = ['check', '--workspace', ref, '--plan', planFile(['aws_iam_user']), '--wait-override'];
    const gone = await policyhub([...args, '--timeout', '3']);
    expect(gone.code, gone.stderr).toBe(1);
    expect(gone.stderr).toMatch(/no override within 3 s; run run-\S+ discarded \(--keep-run keeps it\)/);
    const kept = await policyhub([...args, '--timeout', '3', '--keep-run']);
    expect(kept.code, kept.stderr).toBe(1);
    expect(kept.stderr).toMatch(/run run-\S+ is kept \(--keep-run\)/);
    const runs = (await org.owner.api.get(`/workspaces/${workspace.id}/runs`)).body.data;
    // Newest first: the kept run still waits for an override, the other was discarded.
    expect(runs.map((r: { attributes: { status: string } }) => r.attributes.status)).toEqual([
      'policy_override',
      'discarded',
    ]);
    const events = (await org.owner.api.get(`/runs/${runs[1].id}/run-events`)).body.data;
    expect(events.at(-1).attributes).toMatchObject({
      action: 'discarded',
      description: 'policyhub check: no override within 3 s',
    });
  });

  it('interrupted (SIGINT, SIGTERM) while waiting, discards its run and exits 130', {
    timeout: 90_000,
  }, async () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const { ref, workspace } = await guardrails();
      const cli = start([
        'check',
        '--workspace',
        ref,
        '--plan',
        planFile(['aws_iam_user']),
        '--wait-override',
      ]);
      const run = await waitFor(
        async () => {
          const [newest] = (await org.owner.api.get(`/workspaces/${workspace.id}/runs`)).body.data;
          return newest?.attributes.status === 'policy_override' && newest;
        },
        45_000,
        100,
      );
      cli.child.kill(signal);
      const res = await cli.done;
      expect(res.code, res.stderr).toBe(130);
      expect(res.stderr).toContain(`interrupted; run ${run.id} discarded`);
      expect((await org.owner.api.get(`/runs/${run.id}`)).body.data.attributes.status).toBe('discarded');
    }
  });

  it('exits 0 when no policy set applies, and accepts a workspace id and TFE_* variables', {
    timeout: 60_000,
  }, async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const res = await policyhub(
      ['check', '--workspace', ws.id, '--plan', planFile(['aws_instance']), '--json'],
      {
        POLICYHUB_ADDRESS: '',
        POLICYHUB_TOKEN: '',
        TFE_ADDRESS: `${t.system.baseUrl}/api/v2`,
        TFE_TOKEN: org.owner.token,
      },
    );
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({
      verdict: 'no-policies',
      run: { status: 'planned' },
      policyCheck: null,
    });
  });

  it('exits 1 with a clear message for usage, permission, plan and connection problems', {
    timeout: 60_000,
  }, async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const ref = `${org.name}/${ws.attributes.name as string}`;

    const noPlan = await policyhub(['check', '--workspace', ref]);
    expect(noPlan.code).toBe(1);
    expect(noPlan.stderr).toContain('--plan FILE is required');

    const missingFile = await policyhub(['check', '--workspace', ref, '--plan', join(dir, 'nope.json')]);
    expect(missingFile.code).toBe(1);
    expect(missingFile.stderr).toContain('cannot read the plan file');

    const notAPlan = join(dir, 'not-a-plan.json');
    writeFileSync(notAPlan, '{"resource_changes": []}');
    const bad = await policyhub(['check', '--workspace', ref, '--plan', notAPlan]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/422 invalid attribute: format_version is required .*\(at \/format_version\)/);

    const reader = await createMember(t, org, ['read-runs']);
    const denied = await policyhub(['check', '--workspace', ref, '--plan', planFile([])], {
      POLICYHUB_TOKEN: reader.token,
    });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('POST /api/v2/runs: 404');

    const unknownWs = await policyhub([
      'check',
      '--workspace',
      `${org.name}/no-such-ws`,
      '--plan',
      planFile([]),
    ]);
    expect(unknownWs.code).toBe(1);
    expect(unknownWs.stderr).toContain(`workspace ${org.name}/no-such-ws not found`);

    const badToken = await policyhub(['check', '--workspace', ref, '--plan', planFile([])], {
      POLICYHUB_TOKEN: 'nope',
    });
    expect(badToken.code).toBe(1);
    expect(badToken.stderr).toContain('401 unauthorized');

    const unreachable = await policyhub(['check', '--workspace', ref, '--plan', planFile([])], {
      POLICYHUB_ADDRESS: 'http://127.0.0.1:1',
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('cannot reach http://127.0.0.1:1');

    const noToken = await policyhub(['check', '--workspace', ref, '--plan', planFile([])], {
      POLICYHUB_TOKEN: '',
    });
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toContain('no API token');
  });

  it('is the npm bin of the repository: `npx policyhub` runs it', { timeout: 60_000 }, async () => {
    const res = await new Promise<Result>((resolve) => {
      const child = spawn('npx', ['--no-install', 'policyhub', '--help'], {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('policyhub check --workspace ORG/WS --plan plan.json');
  });
});
