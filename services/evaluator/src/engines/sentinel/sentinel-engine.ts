import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EngineInput, EngineRun, PolicyEngine, PolicyOutcome } from '../engine.js';
import { findExecutable, printedBy } from '../executables.js';
import { howItEnded, runProcess } from '../process.js';
import { layOutArchive, layOutPolicies, type MockFiles, type SetLayout } from './layout.js';
import { renderSentinelModule, tfplanV2, tfrun } from './mock-data.js';
import { readApplyResult } from './results.js';

/** Where the official Sentinel CLI is published (docs/policy-evaluation.md explains the install). */
export const SENTINEL_DOWNLOADS = 'https://releases.hashicorp.com/sentinel/';

/** `sentinel apply -json` prints traces; a set's answer larger than this is refused. */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** The Sentinel CLI at SENTINEL_BIN, else `sentinel` on PATH, with the version it reports. */
export async function detectSentinel(
  env: Record<string, string | undefined>,
): Promise<SentinelEngine | { problem: string }> {
  const found = findExecutable(env, 'SENTINEL_BIN', 'sentinel');
  if ('problem' in found) return found;
  try {
    const version = (await printedBy(found.path, ['version'])).trim().split('\n')[0] ?? '';
    return new SentinelEngine(found.path, version);
  } catch (err) {
    return { problem: (err as Error).message };
  }
}

/**
 * The kind_a engine: the real Sentinel CLI, once per set (`sentinel apply -json
 * -config=<file>` in the set's directory), with the plan exposed as the `tfplan/v2` import and
 * the run as `tfrun` (mock modules generated from the plan JSON).
 */
export class SentinelEngine implements PolicyEngine {
  readonly name = 'sentinel';

  constructor(
    readonly path: string,
    /** What `sentinel version` printed (first line), or ''. */
    readonly version: string,
  ) {}

  describe(): string {
    return `Sentinel CLI ${this.path}${this.version ? ` (${this.version})` : ''}`;
  }

  async evaluate(input: EngineInput): Promise<EngineRun> {
    const { workDir, sets } = input;
    let plan: unknown;
    try {
      plan = JSON.parse(await readFile(input.planFile, 'utf8'));
    } catch (err) {
      return failure(`the plan is not JSON: ${(err as Error).message}`);
    }
    const mocks: MockFiles = {
      'tfplan/v2': join(workDir, 'mock-tfplan-v2.sentinel'),
      tfrun: join(workDir, 'mock-tfrun.sentinel'),
    };
    try {
      await writeFile(mocks['tfplan/v2'], renderSentinelModule(tfplanV2(plan)), { mode: 0o600, flag: 'wx' });
      await writeFile(mocks.tfrun, renderSentinelModule(tfrun(input.run)), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      return failure(`could not expose the plan to Sentinel: ${(err as Error).message}`);
    }
    const layouts: SetLayout[] = [];
    try {
      for (const [i, set] of sets.entries()) {
        layouts.push(
          set.archive
            ? await layOutArchive(set.archive, set.declaration, set, mocks)
            : await layOutPolicies(join(workDir, `set-${i}`), set, mocks),
        );
      }
    } catch (err) {
      return failure((err as Error).message);
    }

    const started = Date.now();
    const outcomes: PolicyOutcome[] = [];
    const details: Record<string, unknown> = Object.create(null);
    for (const layout of layouts) {
      const limits = { timeoutMs: input.timeoutMs, maxOutputBytes: MAX_OUTPUT_BYTES };
      let run: Awaited<ReturnType<typeof runProcess>>;
      try {
        run = await runProcess(this.path, ['apply', '-json', `-config=${layout.configFile}`], {
          cwd: layout.dir,
          timeoutMs: input.timeoutMs - (Date.now() - started),
          maxOutputBytes: MAX_OUTPUT_BYTES,
          signal: input.signal,
        });
      } catch (err) {
        return failure((err as Error).message);
      }
      // 0 pass, 1 fail, 2 undefined, 3 runtime error: results are in the JSON; anything else
      // (9, a signal, a time limit) means Sentinel itself failed.
      if (
        run.exitCode === null ||
        ![0, 1, 2, 3].includes(run.exitCode) ||
        run.timedOut ||
        run.outputExceeded
      ) {
        const how = howItEnded(run, 'Sentinel', limits);
        if (run.timedOut) return failure(how, run.stderr);
        return failure(`${how} on policy set ${layout.setName}`, `${run.stderr}${run.stdout}`);
      }
      try {
        for (const o of readApplyResult(run.stdout, layout))
          outcomes.push({ policySetId: layout.setId, ...o });
      } catch (err) {
        return failure(`policy set ${layout.setName}: ${(err as Error).message}`, run.stderr);
      }
      details[layout.setName] = summary(run.stdout);
    }
    return { outcomes, details: { engine: 'sentinel', version: this.version, sets: details } };
  }
}

const failure = (error: string, output = ''): EngineRun => ({ error, output });

/** The apply document without traces (they can be large): results and errors per policy. */
function summary(stdout: string): unknown {
  try {
    const doc = JSON.parse(stdout) as {
      result?: unknown;
      error?: unknown;
      policies?: Array<Record<string, unknown>>;
    };
    return {
      result: doc.result ?? null,
      error: doc.error ?? null,
      policies: (doc.policies ?? []).map((p) => ({
        policy: p.policy ?? null,
        result: p.result ?? null,
        error: p.error ?? null,
        'allowed-failure': p.allowed_failure ?? null,
      })),
    };
  } catch {
    return {};
  }
}
