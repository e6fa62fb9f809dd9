import { type EngineInput, type EngineRun, isEnforcementLevel, type PolicyEngine } from '../engine.js';
import { howItEnded, runProcess } from '../process.js';
import { buildEngineRequest, type DeclaredArchivePolicies, parseEngineResult } from './contract.js';

/** The engine's JSON answer is bounded: a result past this is refused. */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

/**
 * A generic engine executable (EVALUATOR_COMMAND) for sets of every kind: the engine contract of
 * docs/evaluator.md (version 2), once per check, in the engine's private directory. It inherits
 * the evaluator's environment, as that contract says.
 */
export class CommandEngine implements PolicyEngine {
  readonly name = 'command';

  constructor(private readonly command: readonly string[]) {}

  describe(): string {
    return `engine command ${this.command[0]} (EVALUATOR_COMMAND)`;
  }

  async evaluate(input: EngineInput): Promise<EngineRun> {
    const declared = declaredSentinelPolicies(input);
    const request = JSON.stringify(buildEngineRequest(input, declared));
    const limits = { timeoutMs: input.timeoutMs, maxOutputBytes: MAX_OUTPUT_BYTES };
    let run: Awaited<ReturnType<typeof runProcess>>;
    try {
      run = await runProcess(this.command[0]!, this.command.slice(1), {
        ...limits,
        stdin: request,
        cwd: input.workDir,
        signal: input.signal,
      });
    } catch (err) {
      return { error: (err as Error).message, output: '' };
    }
    if (run.exitCode !== 0 || run.timedOut || run.outputExceeded || run.aborted) {
      return { error: howItEnded(run, 'the engine', limits), output: run.stderr };
    }
    let result: ReturnType<typeof parseEngineResult>;
    try {
      result = parseEngineResult(run.stdout);
    } catch (err) {
      return { error: (err as Error).message, output: run.stderr };
    }
    // The levels that count are the request's (listed policies) and the configuration's (archive
    // policies); what the engine says is kept only for a policy the check does not know.
    const levels = new Map<string, string>();
    for (const set of input.sets) {
      for (const p of set.policies) levels.set(`${set.id}\u0000${p.name}`, p.enforcementLevel);
      for (const p of declared.get(set.id) ?? []) levels.set(`${set.id}\u0000${p.name}`, p.enforcementLevel);
    }
    return {
      outcomes: result.outcomes.map((o) => {
        const level = levels.get(`${o.policySetId}\u0000${o.policyName}`) ?? o.enforcementLevel;
        return {
          policySetId: o.policySetId,
          policyName: o.policyName,
          enforcementLevel: isEnforcementLevel(level) ? level : undefined,
          result: o.passed ? 'passed' : 'failed',
          lines: o.lines,
        };
      }),
      details: result.details,
      report: result.report,
    };
  }
}

/**
 * The contract's `archive_policies`: what each kind_a archive's sentinel.hcl declares, as storage
 * recorded it at upload.
 */
function declaredSentinelPolicies(input: EngineInput): DeclaredArchivePolicies {
  const declared = new Map<string, Array<{ name: string; enforcementLevel: string; source: string }>>();
  for (const set of input.sets) {
    if (set.kind !== 'kind_a' || !set.declaration) continue;
    declared.set(
      set.id,
      set.declaration.policies.map((p) => ({
        name: p.name,
        enforcementLevel: p.enforcementLevel,
        // As before: '' when the file named none (the layout check requires one).
        source: p.source,
      })),
    );
  }
  return declared;
}
