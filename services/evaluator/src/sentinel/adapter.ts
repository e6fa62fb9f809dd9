import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EngineOutcome, EngineResult } from '../engine-contract.js';
import type { SentinelEngine } from '../engines.js';
import { layOutArchive, layOutPolicies, type MockFiles, type SetLayout } from './layout.js';
import { renderSentinelModule, type RunFacts, tfplanV2, tfrun } from './mock-data.js';
import { readApplyResult } from './results.js';

/** A set as the worker prepared it: individual policies, or an extracted archive. */
export interface PreparedSet {
  id: string;
  name: string;
  parameters: Record<string, string>;
  policies: Array<{ name: string; enforcementLevel: string; code: string }>;
  /** Where the version's archive was extracted (versioned sets). */
  archiveDir: string | undefined;
  policiesPath: string;
}

export type AdapterOutcome = { result: EngineResult } | { error: string; report: string };

const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/**
 * The kind_a adapter: the real Sentinel CLI, once per set (`sentinel apply -json
 * -config=<file>` in the set's directory), with the plan exposed as the `tfplan/v2` import and
 * the run as `tfrun` (mock modules generated from the plan JSON).
 */
export async function evaluateWithSentinel(options: {
  sentinel: SentinelEngine;
  workDir: string;
  planFile: string;
  run: RunFacts;
  sets: PreparedSet[];
  timeoutMs: number;
  signal: AbortSignal;
}): Promise<AdapterOutcome> {
  const { workDir, sets } = options;
  let plan: unknown;
  try {
    plan = JSON.parse(await readFile(options.planFile, 'utf8'));
  } catch (err) {
    return failure(`the plan is not JSON: ${(err as Error).message}`);
  }
  const mocks: MockFiles = {
    'tfplan/v2': join(workDir, 'mock-tfplan-v2.sentinel'),
    tfrun: join(workDir, 'mock-tfrun.sentinel'),
  };
  try {
    await writeFile(mocks['tfplan/v2'], renderSentinelModule(tfplanV2(plan)), { mode: 0o600, flag: 'wx' });
    await writeFile(mocks.tfrun, renderSentinelModule(tfrun(options.run)), { mode: 0o600, flag: 'wx' });
  } catch (err) {
    return failure(`could not expose the plan to Sentinel: ${(err as Error).message}`);
  }
  const layouts: SetLayout[] = [];
  try {
    for (const [i, set] of sets.entries()) {
      layouts.push(
        set.archiveDir !== undefined
          ? await layOutArchive(set.archiveDir, set.policiesPath, set, mocks)
          : await layOutPolicies(join(workDir, `set-${i}`), set, mocks),
      );
    }
  } catch (err) {
    return failure((err as Error).message);
  }

  const started = Date.now();
  const outcomes: EngineOutcome[] = [];
  const details: Record<string, unknown> = Object.create(null);
  for (const layout of layouts) {
    const remainingMs = options.timeoutMs - (Date.now() - started);
    const run = await apply(options.sentinel.path, layout, Math.max(1, remainingMs), options.signal);
    if (run.timedOut) return failure(`Sentinel did not finish within ${options.timeoutMs} ms`, run.stderr);
    // 0 pass, 1 fail, 2 undefined, 3 runtime error: results are in the JSON; anything else
    // (9, a signal, a missing binary) means Sentinel itself failed.
    if (run.code === null || ![0, 1, 2, 3].includes(run.code)) {
      const how =
        run.code === null
          ? `was killed (${run.signal ?? 'unknown signal'})`
          : `exited with status ${run.code}`;
      return failure(`Sentinel ${how} on policy set ${layout.setName}`, `${run.stderr}${run.stdout}`);
    }
    try {
      for (const o of readApplyResult(run.stdout, layout)) {
        outcomes.push({
          policySetId: layout.setId,
          policyName: o.policyName,
          passed: o.passed,
          enforcementLevel: o.enforcementLevel,
          lines: o.lines,
          file: o.file,
        });
      }
    } catch (err) {
      return failure(`policy set ${layout.setName}: ${(err as Error).message}`, run.stderr);
    }
    details[layout.setName] = summary(run.stdout);
  }
  return {
    result: {
      outcomes,
      report: undefined,
      details: { engine: 'sentinel', version: options.sentinel.version, sets: details },
    },
  };
}

function failure(error: string, output = ''): AdapterOutcome {
  const tail = output.trim() ? `\n\nSentinel output:\n${output.trimEnd().slice(-64 * 1024)}\n` : '\n';
  return { error, report: `Policy check errored: ${error}${tail}` };
}

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

interface ApplyRun {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

function apply(binary: string, layout: SetLayout, timeoutMs: number, signal: AbortSignal): Promise<ApplyRun> {
  return new Promise((resolve) => {
    execFile(
      binary,
      ['apply', '-json', `-config=${layout.configFile}`],
      {
        cwd: layout.dir,
        timeout: timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: MAX_OUTPUT_BYTES,
        signal,
        encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        const e = err as
          | (NodeJS.ErrnoException & { code?: number | string; killed?: boolean; signal?: string })
          | null;
        if (e && typeof e.code === 'string') {
          // The binary could not be started (ENOENT, EACCES) or the call was aborted.
          return resolve({ code: null, signal: e.code, timedOut: false, stdout: '', stderr: e.message });
        }
        resolve({
          code: e ? ((e.code as number | undefined) ?? null) : 0,
          signal: e?.signal ?? null,
          timedOut: !!e?.killed && e.signal === 'SIGKILL' && !signal.aborted,
          stdout,
          stderr,
        });
      },
    );
  });
}
