import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { conflict } from '@policyhub/errors';
import { createLogger } from '@policyhub/telemetry';
import { testWorkerTokens, waitFor } from '@policyhub/testing';
import tar from 'tar-stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CommandEngine } from '../src/engines/command/command-engine.js';
import { EngineRegistry } from '../src/engines/registry.js';
import { EvaluatorWorker } from '../src/worker.js';
import { type Decision, FakeRuns, type QueuedCheck } from './support/fake-runs.js';

const HARD = 'EVALUATION_ENFORCEMENT_LEVEL_HARD_MANDATORY' as const;
const plan = Buffer.from(JSON.stringify({ resource_changes: [{ address: 'aws_s3_bucket.logs' }] }));

/** An engine executable (contract version 2) written as a Node script. */
const engine = (script: string) =>
  EngineRegistry.everyKind(new CommandEngine([process.execPath, '-e', script]));
const noEngine = EngineRegistry.of({
  kind_a: { problem: 'SENTINEL_BIN is not set and there is no `sentinel` executable on PATH' },
  kind_b: { problem: 'OPA_BIN is not set and there is no `opa` executable on PATH' },
});

/** Fails every listed and every archive policy, saying what it was given. */
const FAIL_EVERYTHING = `
  const request = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
  const policies = request.policy_sets.flatMap((s) =>
    [...s.policies.map((p) => p.name), ...(s.archive_policies ?? []).map((p) => p.name)].map((name) => ({
      policy_set_id: s.id, policy: name, passed: false,
      output: ['kind=' + s.kind, 'plan=' + require('node:fs').readFileSync(request.plan_path, 'utf8').length],
    })));
  process.stdout.write(JSON.stringify({ policies, details: { engine: 'test' } }));
`;

async function tgz(files: Record<string, string>): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((resolve) => pack.on('end', resolve));
  for (const [name, content] of Object.entries(files)) pack.entry({ name }, content);
  pack.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}

describe('evaluator worker', () => {
  const runs = new FakeRuns();
  const log: Array<{ msg: string }> = [];
  let worker: EvaluatorWorker | undefined;
  let n = 0;

  beforeAll(() => runs.start());
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
  });
  afterAll(() => runs.stop());

  function startWorker(engines: EngineRegistry, concurrency = 1) {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        log.push(JSON.parse(chunk.toString()) as { msg: string });
        done();
      },
    });
    worker = new EvaluatorWorker({
      runsAddress: runs.address,
      token: testWorkerTokens.evaluator,
      engines,
      evaluatorId: 'worker-test',
      pollIntervalMs: 20,
      leaseSeconds: 30,
      timeoutMs: 20_000,
      concurrency,
      logger: createLogger('evaluator', 'info', sink),
    });
    worker.start();
  }

  function queue(check: Omit<QueuedCheck, 'id'>): string {
    const id = `polchk-${++n}`;
    runs.queue({ id, ...check });
    return id;
  }

  const individual = (id = 'polset-a') => ({
    id,
    name: 'guardrails',
    policies: [{ id: 'pol-1', name: 'no-s3', enforcementLevel: HARD, code: 'aws_s3_bucket' }],
  });

  const completed = (d: Decision) => {
    if (d.kind !== 'completed') throw new Error(`the check was failed: ${d.request.errorMessage}`);
    return d.request;
  };
  const failed = (d: Decision) => {
    if (d.kind !== 'failed') throw new Error('the check was completed');
    return d.request;
  };

  it("reports each policy's outcome at its level, the report and the engine's details", async () => {
    startWorker(engine(FAIL_EVERYTHING));
    const id = queue({ plan, sets: [individual()] });
    const request = completed(await runs.decided(id));
    expect(request.outcomes).toEqual([
      expect.objectContaining({ policySetId: 'polset-a', policyName: 'no-s3', passed: false }),
    ]);
    expect(request.report).toContain('kind_a Result: false');
    expect(request.report).toContain('1 policies evaluated.');
    expect(request.report).toContain('## Policy 1: guardrails/no-s3 (hard-mandatory)');
    expect(request.report).toContain(`plan=${plan.length}`);
    expect(JSON.parse(request.engineDetailsJson!)).toEqual({ engine: 'test' });
  });

  it("extracts a versioned set's archive and gives the engine the policies recorded at upload, not re-read", async () => {
    startWorker(engine(FAIL_EVERYTHING));
    // The archive's file declares one soft-mandatory policy; storage recorded two (an archive never
    // changes once stored: the difference shows which one the evaluator goes by).
    const archive = await tgz({
      'prod/sentinel.hcl':
        'policy "a" {\n  source = "./a.sentinel"\n  enforcement_level = "soft-mandatory"\n}\n',
      'prod/a.sentinel': 'main = rule { true }',
      'prod/b.sentinel': 'main = rule { true }',
    });
    const declaration = {
      root: 'prod',
      configPath: 'prod/sentinel.hcl',
      policies: [
        {
          name: 'a',
          enforcementLevel: 'DECLARED_ENFORCEMENT_LEVEL_HARD_MANDATORY' as const,
          source: './a.sentinel',
        },
        {
          name: 'b',
          enforcementLevel: 'DECLARED_ENFORCEMENT_LEVEL_ADVISORY' as const,
          source: './b.sentinel',
        },
      ],
      sentinelBlocksJson: '{}',
    };
    const id = queue({ plan, sets: [{ id: 'polset-v', name: 'versioned', archive, declaration }] });
    const request = completed(await runs.decided(id));
    expect(request.outcomes).toEqual([
      expect.objectContaining({
        policySetId: 'polset-v',
        policyName: 'a',
        enforcementLevel: 'EVALUATION_ENFORCEMENT_LEVEL_HARD_MANDATORY',
      }),
      expect.objectContaining({
        policySetId: 'polset-v',
        policyName: 'b',
        enforcementLevel: 'EVALUATION_ENFORCEMENT_LEVEL_ADVISORY',
      }),
    ]);
    expect(request.report).toContain('## Policy 1: versioned/a (hard-mandatory)');

    // A version uploaded before declarations were recorded is not evaluated: the check fails.
    const legacy = queue({ plan, sets: [{ id: 'polset-old', name: 'old', archive }] });
    expect(failed(await runs.decided(legacy)).errorMessage).toBe(
      "could not prepare the check's input: policy set old: its current version was uploaded before PolicyHub recorded what archives declare; upload the version again",
    );
  });

  it('ends a check errored, saying how to install one, when no engine evaluates its kind', async () => {
    startWorker(noEngine);
    const sentinelCheck = queue({ plan, sets: [individual()] });
    expect(failed(await runs.decided(sentinelCheck)).errorMessage).toMatch(
      /^no policy engine for kind_a \(Sentinel\) policy sets: the Sentinel CLI was not found .*Install it/,
    );
    const opaCheck = queue({ plan, sets: [{ ...individual('polset-b'), kind: 'EVALUATION_POLICY_KIND_B' }] });
    expect(failed(await runs.decided(opaCheck)).errorMessage).toMatch(
      /^no policy engine for kind_b \(OPA\) policy sets/,
    );
  });

  it('refuses a plan that is not the one runs announced, and a check whose plan is gone', async () => {
    startWorker(engine(FAIL_EVERYTHING));
    const altered = queue({ plan, sets: [individual()], planSha256: '0'.repeat(64) });
    expect(failed(await runs.decided(altered)).errorMessage).toMatch(
      /^could not prepare the check's input: plan\/polchk-\d+ does not match its SHA-256/,
    );
    const gone = queue({
      plan,
      sets: [individual()],
      inputError: conflict(
        'RUNS_PLAN_MISSING',
        'the run has no stored plan JSON; the check cannot be evaluated',
      ),
    });
    expect(failed(await runs.decided(gone)).errorMessage).toBe(
      'the run has no stored plan JSON; the check cannot be evaluated',
    );
  });

  it('masks sensitive parameter values in everything it reports and logs; plain ones stay', async () => {
    const SECRET = 'tok-91c4e7-never-shown';
    const withParameters = {
      ...individual(),
      parameters: { region: 'eu-west-1', token: SECRET, quoted: '"quoted-secret"', pin: '42' },
      sensitiveParameters: ['token', 'quoted', 'pin'],
    };
    // An engine that prints every parameter it was given: in the output, the details, an error.
    const PRINTING = `
      const request = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
      const shown = (s) => Object.entries(s.parameters).map(([k, v]) => k + '=' + JSON.parse(JSON.stringify(v)) + ' ' + (v.startsWith('"') ? JSON.parse(v) : ''));
      if (process.env.CRASH_WITH_PARAMS || request.policy_sets[0].parameters.crash) {
        process.stderr.write('engine failed with ' + shown(request.policy_sets[0]).join(', '));
        process.exit(3);
      }
      const policies = request.policy_sets.flatMap((s) => s.policies.map((p) => ({
        policy_set_id: s.id, policy: p.name, passed: false, output: shown(s) })));
      process.stdout.write(JSON.stringify({ policies, details: { given: request.policy_sets[0].parameters } }));
    `;
    startWorker(engine(PRINTING));
    const request = completed(await runs.decided(queue({ plan, sets: [withParameters] })));
    const sent = JSON.stringify(request);
    expect(sent).not.toContain(SECRET);
    expect(sent).not.toContain('quoted-secret');
    expect(request.outcomes[0]!.output).toEqual([
      'region=eu-west-1 ',
      'token=*** ',
      'quoted=*** ***',
      // Values under four characters are not masked (they would mask half of a report).
      'pin=42 ',
    ]);
    expect(JSON.parse(request.engineDetailsJson!)).toEqual({
      given: { region: 'eu-west-1', token: '***', quoted: '***', pin: '42' },
    });
    expect(request.report).toContain('token=***');

    const crashing = queue({
      plan,
      sets: [{ ...withParameters, parameters: { ...withParameters.parameters, crash: 'yes' } }],
    });
    const failure = failed(await runs.decided(crashing));
    expect(failure.report).toContain('engine failed with region=eu-west-1');
    expect(JSON.stringify(failure)).not.toContain(SECRET);
    expect(JSON.stringify(log)).not.toContain(SECRET);
  });

  it('errors a check at once when a sensitive parameter of its sets cannot be decrypted', async () => {
    startWorker(engine(FAIL_EVERYTHING));
    const id = queue({
      plan,
      sets: [individual()],
      inputError: conflict(
        'POLICY_SETS_PARAMETER_UNREADABLE',
        'parameter token (var-1) of policy set polset-a cannot be decrypted: sealed with key old, which is not configured',
      ),
    });
    expect(failed(await runs.decided(id)).errorMessage).toMatch(
      /^parameter token \(var-1\) .* cannot be decrypted/,
    );
    expect(runs.claims.filter((c) => c.checkId === id)).toHaveLength(1);
  });

  it('reports nothing for a check whose lease was lost while its engine ran', async () => {
    // The engine waits until the test has taken the lease away, then answers.
    startWorker(engine(`setTimeout(() => { ${FAIL_EVERYTHING} }, 1500)`));
    const id = queue({ plan, sets: [individual()] });
    await waitFor(() => runs.claims.some((c) => c.checkId === id), 10_000, 10);
    runs.revokeLease(id);
    await waitFor(
      () => log.some((l) => l.msg === 'lease lost; another evaluator holds the check now'),
      20_000,
      20,
    );
    expect(runs.decision(id)).toBeUndefined();
  });

  it('evaluates as many checks at once as its concurrency allows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evaluator-concurrency-'));
    // Each engine announces itself, then waits (at most 15 s) until a second one has too.
    const together = `
      const fs = require('node:fs');
      const request = JSON.parse(fs.readFileSync(0, 'utf8'));
      fs.writeFileSync(${JSON.stringify(dir)} + '/' + request.policy_check_id, '');
      const until = Date.now() + 15000;
      const peers = () => fs.readdirSync(${JSON.stringify(dir)}).length;
      const answer = () => process.stdout.write(JSON.stringify({ policies: request.policy_sets.flatMap((s) =>
        s.policies.map((p) => ({ policy_set_id: s.id, policy: p.name, passed: true, output: ['peers=' + peers()] }))) }));
      const wait = () => (peers() >= 2 || Date.now() > until ? answer() : setTimeout(wait, 20));
      wait();
    `;
    try {
      startWorker(engine(together), 2);
      const ids = [queue({ plan, sets: [individual()] }), queue({ plan, sets: [individual()] })];
      for (const id of ids) expect(completed(await runs.decided(id)).report).toContain('peers=2');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a check whose report fails is left to its lease; the next check is claimed without backing off', async () => {
    startWorker(engine(FAIL_EVERYTHING));
    const broken = queue({ plan, sets: [individual()], reportError: new Error('runs could not store it') });
    const healthy = queue({ plan, sets: [individual()] });
    completed(await runs.decided(healthy));
    expect(runs.decision(broken)).toBeUndefined();
    expect(log.map((l) => l.msg)).toContain(
      'could not evaluate or report the check; it is claimable again once its lease expires',
    );
    expect(log.map((l) => l.msg)).not.toContain('evaluator cycle failed; retrying');
  });

  it('an engine answer runs could not store errors the check at once, saying why', async () => {
    startWorker(engine(FAIL_EVERYTHING.replace("'kind=' + s.kind", "'address aws_s3_bucket.a\\u0000b'")));
    const id = queue({ plan, sets: [individual()] });
    const request = failed(await runs.decided(id));
    expect(request.errorMessage).toBe(
      "the engine's result cannot be stored: its report contains a NUL character (U+0000)",
    );
  });

  it('an adapter that throws on its engine answer errors the check at once instead of on every lease', async () => {
    startWorker(
      EngineRegistry.everyKind({
        name: 'throwing',
        describe: () => 'a throwing adapter',
        evaluate: async () => {
          throw new RangeError('Maximum call stack size exceeded');
        },
      }),
    );
    const id = queue({ plan, sets: [individual()] });
    expect(failed(await runs.decided(id)).errorMessage).toBe(
      'a throwing adapter gave an answer that could not be read: Maximum call stack size exceeded',
    );
    expect(runs.claims.filter((c) => c.checkId === id)).toHaveLength(1);
  });
});
