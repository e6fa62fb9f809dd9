import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineInput, EngineRun, IndividualPolicy, PreparedPolicySet } from '../src/engines/engine.js';
import { findOpa, type OpaInstallation } from '../src/engines/opa/opa-cli.js';
import { OpaEngine } from '../src/engines/opa/opa-engine.js';
import { RUN_FACTS } from './support/run-facts.js';

/**
 * The OPA adapter against `support/opa-standin.mjs`, a stand-in for the `opa` CLI (the real one
 * cannot be installed where these tests run): it answers the adapter's exact command lines in
 * OPA's formats and evaluates a tiny, documented subset of Rego. What is tested is the adapter:
 * the command lines, the files it prepares, how it reads answers and what it makes of them.
 */
const STANDIN = fileURLToPath(new URL('./support/opa-standin.mjs', import.meta.url));

const root = mkdtempSync(join(tmpdir(), 'opa-engine-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = (name: string) => {
  const dir = join(root, `${name}-${++n}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
};

const PLAN = {
  format_version: '1.2',
  resource_changes: [
    { address: 'aws_s3_bucket.logs', type: 'aws_s3_bucket', change: { actions: ['create'] } },
    { address: 'aws_instance.web', type: 'aws_instance', change: { actions: ['update'] } },
  ],
};

let opa: OpaInstallation;
beforeAll(async () => {
  chmodSync(STANDIN, 0o755);
  const found = await findOpa({ OPA_BIN: STANDIN });
  if ('problem' in found) throw new Error(found.problem);
  opa = found;
});

async function evaluate(
  sets: PreparedPolicySet[],
  options: { timeoutMs?: number; maxOutputBytes?: number } = {},
) {
  const check = fresh('check');
  writeFileSync(join(check, 'plan.json'), JSON.stringify(PLAN));
  const workDir = join(check, 'engine-opa');
  mkdirSync(workDir, { mode: 0o700 });
  const engine = new OpaEngine(opa, { maxOutputBytes: options.maxOutputBytes ?? 4 * 1024 * 1024 });
  const input: EngineInput = {
    checkId: 'polchk-1',
    run: RUN_FACTS,
    planFile: join(check, 'plan.json'),
    workDir,
    sets,
    timeoutMs: options.timeoutMs ?? 30_000,
    signal: new AbortController().signal,
  };
  return engine.evaluate(input);
}

const outcomesOf = (run: EngineRun) => {
  if ('error' in run) throw new Error(`the engine failed: ${run.error}`);
  return run.outcomes.map((o) => ({
    policy: o.policyName,
    level: o.enforcementLevel,
    result: o.result,
    lines: o.lines,
  }));
};

let p = 0;
const policy = (
  code: string,
  query: string | undefined,
  extra: Partial<IndividualPolicy> = {},
): IndividualPolicy => ({
  id: `pol-${++p}`,
  name: `policy-${p}`,
  enforcementLevel: 'mandatory',
  code,
  query,
  ...extra,
});
const individual = (policies: IndividualPolicy[], toolVersion?: string): PreparedPolicySet => ({
  id: 'polset-i',
  name: 'guardrails',
  kind: 'kind_b',
  parameters: {},
  toolVersion,
  policies,
});

/** Upstream's example policy in v0 syntax, as upstream's own client tests write Rego. */
const V0_PUBLIC_BUCKETS = `package terraform.policies

import input.plan as plan

deny[msg] {
  r := plan.resource_changes[_]
  r.type == "aws_s3_bucket"
  msg := sprintf("%v is public", [r.address])
}
`;

/** The same rule in v1 syntax, for instances. */
const V1_NO_INSTANCES = `package terraform.policies.instances

deny contains msg if {
  r := input.plan.resource_changes[_]
  r.type == "aws_instance"
  print("checked", r.address)
  msg := sprintf("%v is an instance", [r.address])
}
`;

describe('the OPA CLI', () => {
  it('is found at OPA_BIN, and run with capabilities that leave out network and environment built-ins', () => {
    expect(opa.version).toBe('1.4.2');
    for (const syntax of ['v1', 'v0'] as const) {
      const capabilities = JSON.parse(opa.capabilities[syntax]) as {
        builtins: Array<{ name: string }>;
        allow_net: [];
      };
      const names = capabilities.builtins.map((b) => b.name);
      expect(names).toContain('sprintf');
      expect(names).toContain('net.cidr_contains');
      expect(names).not.toContain('http.send');
      expect(names).not.toContain('net.lookup_ip_addr');
      expect(names).not.toContain('opa.runtime');
      expect(capabilities.allow_net).toEqual([]);
    }
  });

  it('is refused, saying why, when missing or older than 1.0', async () => {
    expect(await findOpa({ PATH: fresh('empty') })).toEqual({
      problem: 'OPA_BIN is not set and there is no `opa` executable on PATH',
    });
    const old = join(fresh('old'), 'opa');
    writeFileSync(old, `#!/bin/sh\nOPA_STANDIN_VERSION=0.70.0 exec "${STANDIN}" "$@"\n`, { mode: 0o755 });
    expect(await findOpa({ OPA_BIN: old })).toEqual({
      problem: `${old} is OPA 0.70.0; the evaluator needs OPA 1.0 or later (it reads v0 policies with --v0-compatible)`,
    });
  });
});

describe('the OPA engine', () => {
  it('evaluates individual policies, v0 and v1 alike: an empty array passes, messages fail', async () => {
    const run = await evaluate([
      individual([
        policy(V0_PUBLIC_BUCKETS, 'terraform.policies.deny', { name: 'public-buckets' }),
        policy(V1_NO_INSTANCES, 'data.terraform.policies.instances.deny', {
          name: 'no-instances',
          enforcementLevel: 'advisory',
        }),
        policy(
          V0_PUBLIC_BUCKETS.replace('"aws_s3_bucket"', '"google_storage_bucket"'),
          'terraform.policies.deny',
          {
            name: 'no-gcs',
          },
        ),
      ]),
    ]);
    expect(outcomesOf(run)).toEqual([
      {
        policy: 'public-buckets',
        level: 'mandatory',
        result: 'failed',
        lines: ['aws_s3_bucket.logs is public'],
      },
      {
        policy: 'no-instances',
        level: 'advisory',
        result: 'failed',
        // The messages, then what the policy printed.
        lines: ['aws_instance.web is an instance', 'checked aws_instance.web'],
      },
      { policy: 'no-gcs', level: 'mandatory', result: 'passed', lines: [] },
    ]);
    expect(!('error' in run) && run.details).toEqual({
      engine: 'opa',
      version: '1.4.2',
      sets: {
        guardrails: {
          policies: [
            {
              policy: 'public-buckets',
              query: 'data.terraform.policies.deny',
              syntax: 'v0',
              result: 'failed',
            },
            {
              policy: 'no-instances',
              query: 'data.terraform.policies.instances.deny',
              syntax: 'v1',
              result: 'failed',
            },
            { policy: 'no-gcs', query: 'data.terraform.policies.deny', syntax: 'v0', result: 'passed' },
          ],
        },
      },
    });
  });

  it("gives the policies upstream's input document: input.plan and input.run", async () => {
    const code = `package terraform.run

deny contains "a speculative run of ws-1 in acme, planning aws_s3_bucket.logs" if {
  input.run.workspace.id == "ws-1"
  input.run.organization.name == "acme"
  input.run.speculative == true
  input.run.message == "ci"
  input.plan.resource_changes[_].address == "aws_s3_bucket.logs"
}
`;
    expect(outcomesOf(await evaluate([individual([policy(code, 'terraform.run.deny')])]))).toEqual([
      expect.objectContaining({
        result: 'failed',
        lines: ['a speculative run of ws-1 in acme, planning aws_s3_bucket.logs'],
      }),
    ]);
  });

  it('errors a policy whose query is undefined or not an array, or that has no code or query', async () => {
    const run = await evaluate([
      individual([
        policy('package t\n\ndeny := true\n', 'data.t.deny', { name: 'boolean' }),
        policy('package t\n\ndeny := []\n', 'data.t.allow', { name: 'undefined' }),
        policy('', 'data.t.deny', { name: 'no-code' }),
        policy('package t\n\ndeny := []\n', undefined, { name: 'no-query' }),
      ]),
    ]);
    expect(outcomesOf(run)).toEqual([
      {
        policy: 'boolean',
        level: 'mandatory',
        result: 'errored',
        lines: ['data.t.deny is a boolean (true), not an array of messages (empty when the policy passes)'],
      },
      {
        policy: 'undefined',
        level: 'mandatory',
        result: 'errored',
        lines: [
          expect.stringMatching(/^data.t.allow is undefined: no rule of that package and name has a value/),
        ],
      },
      {
        policy: 'no-code',
        level: 'mandatory',
        result: 'errored',
        lines: ['the policy has no code: upload it with PUT /policies/:id/upload'],
      },
      {
        policy: 'no-query',
        level: 'mandatory',
        result: 'errored',
        lines: ['the policy has no query naming the rule that decides it'],
      },
    ]);
  });

  it('errors a policy whose code does not compile, or calls a built-in that reaches the network', async () => {
    const callsOut = `package t\n\ndeny contains "x" if {\n  http.send({"method": "get", "url": "http://example.com"})\n}\n`;
    const run = await evaluate([
      individual([policy('package t\n\ndeny contains msg if {\n', 'data.t.deny', { name: 'broken' })]),
      { ...individual([policy(callsOut, 'data.t.deny', { name: 'calls-out' })]), id: 'polset-2' },
    ]);
    expect(outcomesOf(run)).toEqual([
      expect.objectContaining({
        policy: 'broken',
        result: 'errored',
        lines: [expect.stringMatching(/^rego_parse_error: broken\.rego:\d+: unexpected eof token/)],
      }),
      expect.objectContaining({
        policy: 'calls-out',
        result: 'errored',
        lines: ['rego_type_error: calls-out.rego:4: undefined function http.send'],
      }),
    ]);
  });

  it("reads Rego in the syntax of the set's policy-tool-version; latest also takes v0", async () => {
    const v1WithImport = V1_NO_INSTANCES.replace('\n\ndeny', '\n\nimport rego.v1\n\ndeny');
    const run = await evaluate([
      {
        ...individual([policy(V0_PUBLIC_BUCKETS, 'terraform.policies.deny', { name: 'v0-on-1.x' })], '1.4.2'),
        id: 'a',
      },
      {
        ...individual(
          [policy(V1_NO_INSTANCES, 'terraform.policies.instances.deny', { name: 'v1-on-0.x' })],
          '0.61.0',
        ),
        id: 'b',
      },
      {
        ...individual(
          [policy(v1WithImport, 'terraform.policies.instances.deny', { name: 'rego.v1-on-0.x' })],
          '0.61.0',
        ),
        id: 'c',
      },
      {
        ...individual(
          [policy(V0_PUBLIC_BUCKETS, 'terraform.policies.deny', { name: 'v0-on-latest' })],
          'latest',
        ),
        id: 'd',
      },
    ]);
    expect(outcomesOf(run).map((o) => [o.policy, o.result, o.lines[0]])).toEqual([
      [
        'v0-on-1.x',
        'errored',
        'rego_parse_error: v0-on-1.x.rego:5: `if` keyword is required before rule body',
      ],
      ['v1-on-0.x', 'errored', 'rego_parse_error: v1-on-0.x.rego:3: unexpected identifier token'],
      ['rego.v1-on-0.x', 'failed', 'aws_instance.web is an instance'],
      ['v0-on-latest', 'failed', 'aws_s3_bucket.logs is public'],
    ]);
  });

  it('evaluates a versioned set: the recorded declaration, with every .rego below its directory', async () => {
    const archiveDir = fresh('archive');
    const files: Record<string, string> = {
      // The file says one policy, advisory; what storage recorded at upload is what runs. (An
      // archive cannot change once stored: this shows that the file is not read again.)
      'prod/policies.hcl': 'policy "public_buckets" {\n  query = "data.elsewhere.deny"\n}\n',
      'prod/rules/buckets.rego': V0_PUBLIC_BUCKETS.replace(
        'import input.plan',
        'import rego.v1\nimport input.plan',
      ).replace('deny[msg] {', 'deny contains msg if {'),
      'prod/rules/nested/instances.rego': V1_NO_INSTANCES,
      // Outside the configuration's directory: never loaded (it would add a message to the same rule).
      'staging/extra.rego': 'package terraform.policies\n\ndeny contains "from staging" if {\n  true\n}\n',
    };
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(archiveDir, path, '..'), { recursive: true });
      writeFileSync(join(archiveDir, path), content);
    }
    const declared = (name: string, query: string, enforcementLevel: 'advisory' | 'mandatory') => ({
      name,
      query,
      enforcementLevel,
      source: '',
      description: '',
    });
    const versioned: PreparedPolicySet = {
      id: 'polset-v',
      name: 'versioned',
      kind: 'kind_b',
      parameters: {},
      policies: [],
      archive: { file: `${archiveDir}.tar.gz`, dir: archiveDir, policiesPath: 'prod' },
      declaration: {
        configPath: 'prod/policies.hcl',
        sentinelBlocks: {},
        policies: [
          declared('instances', 'data.terraform.policies.instances.deny', 'advisory'),
          declared('public_buckets', 'data.terraform.policies.deny', 'mandatory'),
        ],
      },
    };
    expect(outcomesOf(await evaluate([versioned]))).toEqual([
      {
        policy: 'instances',
        level: 'advisory',
        result: 'failed',
        lines: ['aws_instance.web is an instance', 'checked aws_instance.web'],
      },
      {
        policy: 'public_buckets',
        level: 'mandatory',
        result: 'failed',
        lines: ['aws_s3_bucket.logs is public'],
      },
    ]);

    const staging = {
      ...versioned,
      archive: { ...versioned.archive!, policiesPath: 'staging' },
      declaration: {
        ...versioned.declaration!,
        policies: [declared('staging', 'data.terraform.policies.deny', 'advisory')],
      },
    };
    expect(outcomesOf(await evaluate([staging]))).toEqual([
      { policy: 'staging', level: 'advisory', result: 'failed', lines: ['from staging'] },
    ]);

    expect(await evaluate([{ ...versioned, declaration: undefined }])).toEqual({
      error: 'policy set versioned: what its archive declares is unknown',
      output: '',
    });
  });

  it('errors policies, never passes them, when OPA outgrows its output limit or time limit', async () => {
    const chatty = `package t\n\n${Array.from({ length: 20 }, (_, i) => `deny contains "${'x'.repeat(40)} ${i}" if {\n  true\n}\n`).join('\n')}`;
    const tooMuch = await evaluate([individual([policy(chatty, 'data.t.deny')])], { maxOutputBytes: 600 });
    expect(outcomesOf(tooMuch)).toEqual([
      expect.objectContaining({ result: 'errored', lines: ['OPA printed more than 600 bytes'] }),
    ]);

    const late = await evaluate([individual([policy(V0_PUBLIC_BUCKETS, 'terraform.policies.deny')])], {
      timeoutMs: 1,
    });
    expect(outcomesOf(late)).toEqual([
      expect.objectContaining({
        result: 'errored',
        lines: [
          expect.stringMatching(
            /^(not evaluated: the time limit of 1 ms was spent|OPA did not finish within 1 ms)$/,
          ),
        ],
      }),
    ]);
  });
});
