import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  configurationDir,
  type EngineInput,
  type EngineRun,
  type EnforcementLevel,
  type PolicyEngine,
  type PolicyOutcome,
  type PreparedPolicySet,
} from '../engine.js';
import { howItEnded, type ProcessRun, runProcess } from '../process.js';
import { judgeAnswer, type OpaAnswer, readOpaAnswer } from './eval-output.js';
import { writeInputDocument } from './input-document.js';
import { findOpa, type OpaInstallation } from './opa-cli.js';
import { type RegoSyntax, regoSyntaxFor } from './rego-syntax.js';

export { OPA_DOWNLOADS } from './opa-cli.js';

/** What one `opa eval` may print: the query's value, its messages. */
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

/** Names of individual policies become file names: nothing that could leave the directory. */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** The OPA CLI at OPA_BIN, else `opa` on PATH (1.0 or later), looked up once at start. */
export async function detectOpa(
  env: Record<string, string | undefined>,
): Promise<OpaEngine | { problem: string }> {
  const found = await findOpa(env);
  return 'problem' in found ? found : new OpaEngine(found);
}

/** A query as OPA takes it: upstream's individual policies may name `terraform.deny` for `data.terraform.deny`. */
export const dataQuery = (query: string): string =>
  query === 'data' || query.startsWith('data.') ? query : `data.${query}`;

/** Rego loaded as one OPA bundle, and the policies whose queries are evaluated against it. */
interface Bundle {
  root: string;
  policies: Array<{
    name: string;
    enforcementLevel: EnforcementLevel;
    query: string;
    description?: string | undefined;
    /** Why the policy cannot be evaluated at all (no code, no query). */
    problem?: string;
  }>;
}

/** What every OPA process of one engine run shares. */
interface Run {
  input: EngineInput;
  deadline: number;
  capabilities: Record<RegoSyntax, string>;
  inputDocument: string;
}

/**
 * The kind_b engine: the OPA CLI, as upstream runs it. For each policy, `opa eval --format json
 * --bundle <the set's Rego> --input <{plan, run}> <query>`; the query's value must be an array
 * (empty: passed; messages: failed; anything else: errored). Every process runs in the engine's
 * private directory with a minimal environment, under the check's time limit, with its output
 * bounded, and with capabilities that leave out the built-ins reaching the network or the
 * environment (docs/adr/0043-policy-engines-and-opa-adapter.md).
 */
export class OpaEngine implements PolicyEngine {
  readonly name = 'opa';

  constructor(
    private readonly opa: OpaInstallation,
    private readonly limits: { maxOutputBytes: number } = { maxOutputBytes: MAX_OUTPUT_BYTES },
  ) {}

  describe(): string {
    return `OPA CLI ${this.opa.path} (${this.opa.version})`;
  }

  async evaluate(input: EngineInput): Promise<EngineRun> {
    const run: Run = {
      input,
      deadline: Date.now() + input.timeoutMs,
      capabilities: {
        v1: join(input.workDir, 'capabilities-v1.json'),
        v0: join(input.workDir, 'capabilities-v0.json'),
      },
      inputDocument: join(input.workDir, 'input.json'),
    };
    try {
      for (const syntax of ['v1', 'v0'] as const) {
        await writeFile(run.capabilities[syntax], this.opa.capabilities[syntax], { mode: 0o600, flag: 'wx' });
      }
      await writeInputDocument(input.planFile, input.run, run.inputDocument);
    } catch (err) {
      return { error: `could not write OPA's input: ${(err as Error).message}`, output: '' };
    }
    const outcomes: PolicyOutcome[] = [];
    const sets: Record<string, unknown> = Object.create(null);
    for (const [i, set] of input.sets.entries()) {
      let bundles: Bundle[];
      try {
        bundles = await bundlesOf(set, join(input.workDir, `set-${i}`));
      } catch (err) {
        return { error: `policy set ${set.name}: ${(err as Error).message}`, output: '' };
      }
      const evaluated: unknown[] = [];
      for (const bundle of bundles) {
        const syntax = await this.syntaxOf(bundle, set.toolVersion, run);
        for (const policy of bundle.policies) {
          const judged =
            policy.problem !== undefined
              ? { result: 'errored' as const, lines: [policy.problem] }
              : 'lines' in syntax
                ? { result: 'errored' as const, lines: syntax.lines }
                : await this.judge(policy.query, bundle.root, syntax.syntax, run);
          if (input.signal.aborted) return { error: 'stopped: the lease on the check was lost', output: '' };
          outcomes.push({
            policySetId: set.id,
            policyName: policy.name,
            enforcementLevel: policy.enforcementLevel,
            result: judged.result,
            lines: judged.lines,
            query: policy.query || undefined,
            description: policy.description || undefined,
          });
          evaluated.push({
            policy: policy.name,
            query: policy.query,
            syntax: 'syntax' in syntax ? syntax.syntax : null,
            result: judged.result,
          });
        }
      }
      sets[set.name] = { policies: evaluated };
    }
    return { outcomes, details: { engine: 'opa', version: this.opa.version, sets } };
  }

  /**
   * The syntax the bundle's Rego compiles in (`opa check`), by the set's tool version; when none
   * fits, the errors of the first syntax tried, for every policy of the bundle.
   */
  private async syntaxOf(
    bundle: Bundle,
    toolVersion: string | undefined,
    run: Run,
  ): Promise<{ syntax: RegoSyntax } | { lines: string[] }> {
    if (bundle.policies.every((p) => p.problem !== undefined)) return { syntax: 'v1' };
    const choice = regoSyntaxFor(toolVersion);
    const first = await this.check(bundle.root, choice.first, run);
    if (first === 'ok') return { syntax: choice.first };
    const onlyParsing = first.kind === 'errors' && first.codes.every((c) => c === 'rego_parse_error');
    if (choice.orElse && onlyParsing && (await this.check(bundle.root, choice.orElse, run)) === 'ok') {
      return { syntax: choice.orElse };
    }
    return { lines: first.kind === 'errors' ? first.lines : [] };
  }

  private async check(root: string, syntax: RegoSyntax, run: Run): Promise<'ok' | OpaAnswer> {
    const args = ['check', '--format', 'json', '--capabilities', run.capabilities[syntax], '--bundle'];
    const done = await this.run([...args, ...(syntax === 'v0' ? ['--v0-compatible'] : []), root], run);
    if ('failure' in done) return { kind: 'errors', lines: [done.failure], codes: [''] };
    // `opa check` prints nothing when the Rego compiles, and its errors on stderr.
    return done.exitCode === 0 ? 'ok' : readOpaAnswer(done.stderr || done.stdout, root);
  }

  private async judge(query: string, root: string, syntax: RegoSyntax, run: Run) {
    const args = ['eval', '--format', 'json', '--capabilities', run.capabilities[syntax]];
    args.push(
      '--bundle',
      root,
      '--input',
      run.inputDocument,
      ...(syntax === 'v0' ? ['--v0-compatible'] : []),
    );
    const done = await this.run([...args, query], run);
    if ('failure' in done) return { result: 'errored' as const, lines: [done.failure] };
    // Rego errors come as JSON on stdout; errors before evaluation (the input) as text on stderr.
    const answer: OpaAnswer =
      done.exitCode === 0 || done.stdout.trim()
        ? readOpaAnswer(done.stdout, root)
        : {
            kind: 'errors',
            lines: [done.stderr.trim() || `OPA exited with status ${done.exitCode}`],
            codes: [''],
          };
    const judged = judgeAnswer(query, answer);
    // `print()` output goes to stderr; it follows the messages, as a policy's own notes.
    const printed = answer.kind === 'errors' ? [] : done.stderr.split('\n').filter((l) => l.trim() !== '');
    return { result: judged.result, lines: [...judged.lines, ...printed] };
  }

  private async run(args: string[], run: Run): Promise<ProcessRun | { failure: string }> {
    const timeoutMs = run.deadline - Date.now();
    if (timeoutMs <= 0)
      return { failure: `not evaluated: the time limit of ${run.input.timeoutMs} ms was spent` };
    const { workDir } = run.input;
    let done: ProcessRun;
    try {
      done = await runProcess(this.opa.path, args, {
        timeoutMs,
        maxOutputBytes: this.limits.maxOutputBytes,
        cwd: workDir,
        // Nothing of the evaluator's environment (its token) reaches OPA.
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: workDir, TMPDIR: workDir },
        signal: run.input.signal,
      });
    } catch (err) {
      return { failure: (err as Error).message };
    }
    if (done.timedOut || done.outputExceeded || done.aborted) {
      const limits = { timeoutMs: run.input.timeoutMs, maxOutputBytes: this.limits.maxOutputBytes };
      return { failure: howItEnded(done, 'OPA', limits) };
    }
    return done;
  }
}

/**
 * A versioned set is one bundle (the archive's policies directory: every `.rego` below it, and
 * `data.json`/`data.yaml` files as data, as upstream loads it) whose policies are its
 * configuration file's blocks, as recorded at upload. Each individual policy is a bundle of its own code, so two
 * policies written in the same package never add to each other's rules.
 */
async function bundlesOf(set: PreparedPolicySet, dir: string): Promise<Bundle[]> {
  if (set.archive) {
    // What policies.hcl/json declares, as storage recorded it at upload (not read again here).
    if (!set.declaration) throw new Error('what its archive declares is unknown');
    return [
      {
        root: configurationDir(set.archive),
        policies: set.declaration.policies.map((p) => ({
          name: p.name,
          enforcementLevel: p.enforcementLevel,
          query: dataQuery(p.query),
          description: p.description,
        })),
      },
    ];
  }
  const bundles: Bundle[] = [];
  for (const [j, policy] of set.policies.entries()) {
    const root = join(dir, `policy-${j}`);
    await mkdir(root, { recursive: true, mode: 0o700 });
    const query = policy.query?.trim() ? dataQuery(policy.query.trim()) : '';
    let problem: string | undefined;
    if (!policy.code.trim()) problem = 'the policy has no code: upload it with PUT /policies/:id/upload';
    else if (!query) problem = 'the policy has no query naming the rule that decides it';
    else {
      const file = `${SAFE_NAME.test(policy.name) ? policy.name : 'policy'}.rego`;
      await writeFile(join(root, file), policy.code, { mode: 0o600, flag: 'wx' });
    }
    bundles.push({
      root,
      policies: [{ name: policy.name, enforcementLevel: policy.enforcementLevel, query, problem }],
    });
  }
  return bundles;
}
