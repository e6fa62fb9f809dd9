import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createOrganization,
  createPolicy,
  createPolicySet,
  createWorkspace,
  uniqueName,
} from './support/fixtures.js';
import {
  createRun,
  guardedWorkspace,
  type InternalRunsApi,
  internalRunsApi,
  planJson,
} from './support/runs.js';
import { DatabaseProbe } from './support/security-db.js';
import { type SecurityTestSystem, startSecurityTestSystem } from './support/security-system.js';

/*
 * Policy set parameters reach the kind_a engine as Sentinel params, for policy checks and for
 * policy evaluations (agent-enabled sets), over HTTP with the system's built-in evaluator. The
 * real Sentinel CLI cannot be installed here: SENTINEL_BIN is the test STAND-IN
 * (support/engines/sentinel-standin/sentinel), which reads `param` values from the configuration
 * the adapter generates; its `# standin: param NAME sha256 HEX` marker stands in for a policy that
 * compares a token, `# standin: print-param NAME` for one that prints a param. Every log line of
 * every service and of the evaluator is captured, at trace level.
 */

const SENTINEL_STANDIN = fileURLToPath(
  new URL('./support/engines/sentinel-standin/sentinel', import.meta.url),
);

/** Sensitive values sent in this file: none may be stored, answered or logged anywhere. */
const TOKEN = `tok-${uniqueName('secret')}`;
const OTHER_TOKEN = `tok-${uniqueName('rotated')}`;
const AGENT_TOKEN = `tok-${uniqueName('agent')}`;
const SECRETS = [TOKEN, OTHER_TOKEN, AGENT_TOKEN];

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Sentinel source using two params: the forbidden resource types, and a token it compares. */
const usingParams = (expectedToken: string) => `import "tfplan/v2" as tfplan

param forbidden_types
param api_token
# standin: param api_token sha256 ${sha256(expectedToken)}
# standin: print-param api_token

violations = filter tfplan.resource_changes as _, rc {
  rc.type in forbidden_types and (rc.change.actions contains "create" or rc.change.actions contains "update")
}

main = rule { length(violations) is 0 }
`;

let t: SecurityTestSystem;
let internal: InternalRunsApi;
let org: Awaited<ReturnType<typeof createOrganization>>;
let probe: DatabaseProbe;
/** Every answer's text read in this file. */
const answers: string[] = [];

beforeAll(async () => {
  t = await startSecurityTestSystem({
    captureLogs: true,
    evaluator: {
      environment: { PATH: process.env.PATH, SENTINEL_BIN: SENTINEL_STANDIN },
      pollIntervalMs: 50,
    },
  });
  internal = internalRunsApi(t);
  org = await createOrganization(t, 'paramengine');
  probe = DatabaseProbe.of(t);
}, 120_000);
afterAll(async () => {
  internal?.close();
  await t?.stop();
});

const api = () => org.owner.api;
const read = async (path: string) => {
  const res = await api().get(path);
  answers.push(res.text);
  return res;
};
const parameter = async (setId: string, attributes: Record<string, unknown>) => {
  const res = await api().post(`/policy-sets/${setId}/parameters`, { data: { type: 'vars', attributes } });
  expect(res.status, res.text).toBe(201);
  answers.push(res.text);
  return res.body.data.id as string;
};
const updateParameter = async (setId: string, id: string, attributes: Record<string, unknown>) => {
  const res = await api().patch(`/policy-sets/${setId}/parameters/${id}`, {
    data: { type: 'vars', attributes },
  });
  expect(res.status, res.text).toBe(200);
  answers.push(res.text);
};

/** A planned run creating these resource types; its check (decided by the built-in evaluator). */
async function checkedRun(workspaceId: string, resourceTypes: string[]) {
  const run = await createRun(api(), workspaceId);
  const planned = await internal.executor.ReportPlanFinished({
    runId: run.id,
    planJson: planJson(resourceTypes),
  });
  const checkId = planned.run!.policyCheckIds[0]!;
  const check = await waitFor(
    async () => {
      const res = await read(`/policy-checks/${checkId}`);
      return res.body.data.attributes.status !== 'queued' && res.body.data;
    },
    60_000,
    100,
  );
  const output = (await read(`/policy-checks/${checkId}/output`)).text;
  return { runId: run.id, status: check.attributes.status as string, output };
}

describe('policy set parameters in policy checks', () => {
  it('reach Sentinel as params: the verdict follows their values, sensitive ones included, masked in the output', {
    timeout: 180_000,
  }, async () => {
    const { workspace, set } = await guardedWorkspace(api(), org.name, [
      { name: uniqueName('params'), level: 'hard-mandatory', code: usingParams(TOKEN) },
    ]);
    const types = await parameter(set.id, { key: 'forbidden_types', value: '["aws_s3_bucket"]' });
    const token = await parameter(set.id, { key: 'api_token', value: TOKEN, sensitive: true });

    const clean = await checkedRun(workspace.id, ['aws_instance']);
    expect(clean.status, clean.output).toBe('passed');
    // The policy printed its token param: the output shows it masked.
    expect(clean.output).toContain('api_token = ***');

    const bucket = await checkedRun(workspace.id, ['aws_s3_bucket']);
    expect(bucket.status, bucket.output).toBe('hard_failed');
    expect(bucket.output).toContain('aws_s3_bucket.r0 has forbidden type aws_s3_bucket');

    // The values are read when the check is evaluated: a changed parameter changes the verdict.
    await updateParameter(set.id, types, { value: '["aws_instance"]' });
    const allowed = await checkedRun(workspace.id, ['aws_s3_bucket']);
    expect(allowed.status, allowed.output).toBe('passed');
    const instance = await checkedRun(workspace.id, ['aws_instance']);
    expect(instance.status, instance.output).toBe('hard_failed');

    // Another token than the one the policy expects fails it.
    await updateParameter(set.id, token, { value: OTHER_TOKEN });
    const wrong = await checkedRun(workspace.id, ['aws_s3_bucket']);
    expect(wrong.status, wrong.output).toBe('hard_failed');
    expect(wrong.output).toContain('param api_token is not the expected value');
    expect(wrong.output).toContain('api_token = ***');

    // Without the parameter the policy cannot be evaluated (Sentinel requires a param without default).
    expect((await api().delete(`/policy-sets/${set.id}/parameters/${token}`)).status).toBe(204);
    const missing = await checkedRun(workspace.id, ['aws_s3_bucket']);
    expect(missing.status, missing.output).toBe('hard_failed');
    expect(missing.output).toContain('param api_token has no value');
  });
});

describe('policy set parameters in policy evaluations (agent-enabled kind_a sets)', () => {
  it('reach Sentinel as they do for checks, sensitive ones masked in the outcomes', {
    timeout: 120_000,
  }, async () => {
    const workspace = await createWorkspace(api(), org.name);
    const policy = await createPolicy(api(), org.name, { 'enforcement-level': 'soft-mandatory' });
    const upload = await api().put(`/policies/${policy.id}/upload`, Buffer.from(usingParams(AGENT_TOKEN)), {
      'content-type': 'application/octet-stream',
    });
    expect(upload.status, upload.text).toBeLessThan(300);
    const set = await createPolicySet(
      api(),
      org.name,
      { 'agent-enabled': true, overridable: true },
      { policies: [policy.id], workspaces: [workspace.id] },
    );
    await parameter(set.id, { key: 'forbidden_types', value: '["aws_iam_user"]' });
    await parameter(set.id, { key: 'api_token', value: AGENT_TOKEN, sensitive: true });

    const evaluated = async (resourceTypes: string[]) => {
      const run = await createRun(api(), workspace.id);
      const planned = await internal.executor.ReportPlanFinished({
        runId: run.id,
        planJson: planJson(resourceTypes),
      });
      expect(planned.run!.policyCheckIds).toEqual([]);
      const stageId = planned.run!.taskStageIds[0]!;
      const stage = await waitFor(
        async () => {
          const res = await read(`/task-stages/${stageId}?include=policy_evaluations`);
          return res.body.data.attributes.status !== 'running' && res.body;
        },
        60_000,
        100,
      );
      const evaluation = stage.included[0];
      const outcomes = (await read(`/policy-evaluations/${evaluation.id}/policy-set-outcomes`)).body.data;
      return { evaluation, outcome: outcomes[0].attributes.outcomes[0] };
    };

    const clean = await evaluated(['aws_s3_bucket']);
    expect(clean.evaluation.attributes).toMatchObject({ 'policy-kind': 'kind_a', status: 'passed' });
    expect(clean.outcome.output.map((o: { print: string }) => o.print).join('\n')).toContain(
      'api_token = ***',
    );

    const iam = await evaluated(['aws_iam_user']);
    expect(iam.evaluation.attributes.status).toBe('failed');
    expect(iam.outcome).toMatchObject({ enforcement_level: 'mandatory', status: 'failed' });
    expect(iam.outcome.output.map((o: { print: string }) => o.print).join('\n')).toContain(
      'aws_iam_user.r0 has forbidden type aws_iam_user',
    );
  });
});

describe('sensitive parameter values after evaluation', () => {
  it('are in no table of any service, no answer and no log line (the evaluator and the engine ran)', async () => {
    await probe.settle();
    for (const secret of SECRETS) {
      expect(await probe.tablesContaining(secret), secret).toEqual([]);
      expect(
        answers.filter((a) => a.includes(secret)),
        secret,
      ).toEqual([]);
    }
    // runs' snapshots keep no parameter at all, plain values included.
    const { rows } = await t.system.services.runs!.db.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM runs.policy_checks x WHERE strpos(x::text, 'aws_instance"]') > 0)
            + (SELECT count(*) FROM runs.policy_evaluations x WHERE strpos(x::text, 'aws_iam_user"]') > 0) AS n`,
    );
    expect(Number(rows[0]!.n)).toBe(0);
    const lines = t.logLines();
    // The capture holds the evaluator's lines and the gateway's for the requests that sent the values.
    expect(
      lines.some((l) => l.includes('"service":"evaluator"') && l.includes('policy check evaluated')),
    ).toBe(true);
    expect(lines.some((l) => l.includes('"service":"gateway"') && l.includes('/parameters'))).toBe(true);
    expect(lines.filter((l) => SECRETS.some((s) => l.includes(s)))).toEqual([]);
  });
});
