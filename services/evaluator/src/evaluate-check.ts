import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { PreparedCheck } from './check-input.js';
import type { PolicyEngine, PolicyOutcome, PreparedPolicySet } from './engines/engine.js';
import type { EngineRegistry } from './engines/registry.js';
import { renderReport } from './report.js';

export type CheckEvaluation =
  | { outcomes: PolicyOutcome[]; report: string; details: Record<string, unknown> | undefined }
  | { error: string; report: string };

/** The explanation for the first kind of the check that no engine evaluates, if any. */
export function missingEngine(registry: EngineRegistry, kinds: readonly string[]): string | undefined {
  for (const kind of kinds) {
    const found = registry.engineFor(kind);
    if ('missing' in found) return found.missing;
  }
  return undefined;
}

/**
 * Runs the engine of each kind on its sets (one engine may take several kinds), each in its own
 * private directory under `dir`, sharing the check's time limit, and puts their outcomes
 * together with the report the check shows. An engine that cannot evaluate its sets makes the
 * whole check errored.
 */
export async function evaluateCheck(options: {
  registry: EngineRegistry;
  check: PreparedCheck;
  checkId: string;
  dir: string;
  timeoutMs: number;
  signal: AbortSignal;
}): Promise<CheckEvaluation> {
  const { check } = options;
  const groups = new Map<PolicyEngine, PreparedPolicySet[]>();
  for (const set of check.sets) {
    const engine = options.registry.engineFor(set.kind);
    if ('missing' in engine) return failed(engine.missing);
    groups.set(engine, [...(groups.get(engine) ?? []), set]);
  }
  const started = Date.now();
  const outcomes: PolicyOutcome[] = [];
  const details: Record<string, unknown> = Object.create(null);
  let ownReport: string | undefined;
  for (const [engine, sets] of groups) {
    const timeoutMs = options.timeoutMs - (Date.now() - started);
    if (timeoutMs <= 0) return failed(`the evaluation did not finish within ${options.timeoutMs} ms`);
    const workDir = join(options.dir, `engine-${engine.name}`);
    await mkdir(workDir, { mode: 0o700 });
    let run: Awaited<ReturnType<PolicyEngine['evaluate']>>;
    try {
      run = await engine.evaluate({
        checkId: options.checkId,
        run: check.run,
        planFile: check.planFile,
        workDir,
        sets,
        timeoutMs,
        signal: options.signal,
      });
    } catch (err) {
      // An adapter that throws on what its engine printed (a value too deep to show, say) would
      // throw again on every lease: the check is decided errored now instead.
      return failed(`${engine.describe()} gave an answer that could not be read: ${(err as Error).message}`);
    }
    if ('error' in run) return failed(run.error, run.output, engine);
    outcomes.push(...run.outcomes);
    if (run.details) details[engine.name] = run.details;
    ownReport = groups.size === 1 ? run.report : undefined;
  }
  const names = Object.keys(details);
  return {
    outcomes,
    report: ownReport ?? renderCheckReport(check.sets, outcomes),
    // One engine's details as it gave them (the check's result shows them under its kind).
    details:
      names.length === 0
        ? undefined
        : names.length === 1
          ? (details[names[0]!] as Record<string, unknown>)
          : details,
  };
}

function failed(error: string, output = '', engine?: PolicyEngine): CheckEvaluation {
  const shown = output.trim()
    ? `\n\nOutput of ${engine?.describe()}:\n${output.trimEnd().slice(-64 * 1024)}\n`
    : '\n';
  return { error, report: `Policy check errored: ${error}${shown}` };
}

/** The standard report (upstream's layout) of the outcomes, in the order the engines gave them. */
function renderCheckReport(sets: readonly PreparedPolicySet[], outcomes: readonly PolicyOutcome[]): string {
  const names = new Map(sets.map((s) => [s.id, s.name]));
  const kinds = [...new Set(sets.map((s) => s.kind))];
  return renderReport(
    outcomes.map((o) => ({
      setName: names.get(o.policySetId) ?? o.policySetId,
      policyName: o.heading ?? o.policyName,
      enforcementLevel: o.enforcementLevel ?? '',
      passed: o.result === 'passed',
      lines: o.lines,
    })),
    kinds.length === 1 ? kinds[0] : kinds.join(' and '),
  );
}
