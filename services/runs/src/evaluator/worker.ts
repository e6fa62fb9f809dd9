import * as grpc from '@grpc/grpc-js';
import { contracts, type runsV1 } from '@policyhub/contracts';
import { createClient, readServiceError, workerCredential } from '@policyhub/grpc-runtime';
import type { Logger } from '@policyhub/telemetry';
import { renderReport } from '../domain/report.js';
import { buildEngineRequest, type EngineResult, parseEngineResult } from './engine-contract.js';
import { type EngineRun, runEngine } from './engine-process.js';

export interface WorkerOptions {
  runsAddress: string;
  /** The evaluator's bearer token (one of runs' EVALUATOR_TOKENS). */
  token: string;
  command: string[];
  evaluatorId: string;
  pollIntervalMs: number;
  leaseSeconds: number;
  timeoutMs: number;
  logger: Logger;
}

type Lease = runsV1.PolicyCheckLease__Output;

/**
 * The evaluator worker: claims a queued policy check, runs the engine on it and reports the
 * outcomes (or the error), keeping its lease alive meanwhile. One check at a time; run several
 * workers for parallelism. If the worker dies, its lease expires and another one takes over.
 */
export class EvaluatorWorker {
  private readonly client;
  private stopping = false;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;

  constructor(private readonly options: WorkerOptions) {
    this.client = createClient(
      contracts().policyhub.runs.v1.PolicyEvaluator,
      options.runsAddress,
      workerCredential(options.token),
    );
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Stops claiming; resolves once the check in hand (if any) is reported. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    this.client.close();
  }

  private async run(): Promise<void> {
    const { logger } = this.options;
    let failures = 0;
    while (!this.stopping) {
      let claimed = false;
      try {
        claimed = await this.evaluateNext();
        failures = 0;
      } catch (err) {
        failures++;
        logger.warn({ err: describe(err), failures }, 'evaluator cycle failed; retrying');
      }
      // While runs is unreachable, back off (doubling, at most 30 s) instead of hammering it.
      if (!claimed)
        await this.idle(
          failures === 0 ? this.options.pollIntervalMs : backoffMs(this.options.pollIntervalMs, failures),
        );
    }
  }

  /** Claims and evaluates one check; false when none was waiting. */
  async evaluateNext(): Promise<boolean> {
    const res = await this.client.ClaimPolicyCheck({
      evaluatorId: this.options.evaluatorId,
      leaseSeconds: this.options.leaseSeconds,
    });
    if (!res.claimed || !res.lease) return false;
    await this.evaluate(res.lease);
    return true;
  }

  private async evaluate(lease: Lease): Promise<void> {
    const { logger } = this.options;
    const log = logger.child({ policyCheckId: lease.policyCheckId, attempt: lease.attempt });
    const lost = new AbortController();
    const keepAlive = this.keepLeaseAlive(lease, lost);
    try {
      const ref = { policyCheckId: lease.policyCheckId, leaseToken: lease.leaseToken };
      const input = await this.client.GetPolicyCheckInput(ref);
      const started = Date.now();
      const outcome = await this.runEngine(input, lost.signal);
      const durationMs = Date.now() - started;
      if (lost.signal.aborted) {
        log.warn('lease lost while the engine ran; leaving the check to its new holder');
        return;
      }
      if ('error' in outcome) {
        log.warn({ error: outcome.error }, 'engine failed; reporting the check as errored');
        await this.client.FailPolicyCheck({ ...ref, errorMessage: outcome.error, report: outcome.report });
        return;
      }
      try {
        const done = await this.client.CompletePolicyCheck({
          ...ref,
          outcomes: outcome.result.outcomes.map((o) => ({
            policySetId: o.policySetId,
            policyName: o.policyName,
            passed: o.passed,
            enforcementLevel: o.enforcementLevel,
          })),
          report: outcome.result.report ?? renderEngineReport(input, outcome.result),
          durationMs,
          engineDetailsJson: outcome.result.details ? JSON.stringify(outcome.result.details) : '',
        });
        log.info({ status: done.status, durationMs }, 'policy check evaluated');
      } catch (err) {
        const remote = readServiceError(err);
        if (remote.status !== grpc.status.INVALID_ARGUMENT) throw err;
        // The engine's answer does not match the check (missing or unknown policies).
        const problems = remote.items.map((i) => i.detail ?? i.title).join('; ') || remote.details;
        log.warn({ problems }, 'runs rejected the engine result; reporting the check as errored');
        await this.client.FailPolicyCheck({
          ...ref,
          errorMessage: `the engine's result does not match the policy check: ${problems}`,
          report: '',
        });
      }
    } catch (err) {
      if (readServiceError(err).code === 'RUNS_LEASE_LOST') {
        log.warn('lease lost; another evaluator holds the check now');
        return;
      }
      throw err;
    } finally {
      lost.abort();
      await keepAlive;
    }
  }

  private async runEngine(
    input: runsV1.GetPolicyCheckInputResponse__Output,
    signal: AbortSignal,
  ): Promise<{ result: EngineResult } | { error: string; report: string }> {
    let request: string;
    try {
      request = JSON.stringify(buildEngineRequest(input));
    } catch (err) {
      return { error: `could not build the engine request: ${describe(err)}`, report: '' };
    }
    let run: EngineRun;
    try {
      run = await runEngine(this.options.command, request, { timeoutMs: this.options.timeoutMs, signal });
    } catch (err) {
      return { error: describe(err), report: '' };
    }
    const stderr = run.stderr.trim() ? `\n\nEngine stderr:\n${run.stderr.trimEnd()}\n` : '';
    if (run.timedOut)
      return { error: `the engine did not finish within ${this.options.timeoutMs} ms`, report: stderr };
    if (run.exitCode !== 0) {
      const how = run.signal ? `was killed by ${run.signal}` : `exited with status ${run.exitCode}`;
      return { error: `the engine ${how}`, report: `Policy check errored: the engine ${how}.${stderr}` };
    }
    try {
      return { result: parseEngineResult(run.stdout) };
    } catch (err) {
      return { error: describe(err), report: `Policy check errored: ${describe(err)}${stderr}` };
    }
  }

  /** Extends the lease every third of its length; aborts `lost` when runs says it is gone. */
  private async keepLeaseAlive(lease: Lease, lost: AbortController): Promise<void> {
    const everyMs = Math.max(200, (this.options.leaseSeconds * 1000) / 3);
    while (!lost.signal.aborted) {
      await sleep(everyMs, lost.signal);
      if (lost.signal.aborted) return;
      try {
        await this.client.ExtendPolicyCheckLease({
          policyCheckId: lease.policyCheckId,
          leaseToken: lease.leaseToken,
          leaseSeconds: this.options.leaseSeconds,
        });
      } catch (err) {
        if (readServiceError(err).code === 'RUNS_LEASE_LOST') {
          lost.abort();
          return;
        }
        this.options.logger.warn(
          { err: describe(err), policyCheckId: lease.policyCheckId },
          'could not extend the lease',
        );
      }
    }
  }

  private idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}

/** The standard report when the engine gave none (api-behaviour §4.3 layout). */
function renderEngineReport(input: runsV1.GetPolicyCheckInputResponse__Output, result: EngineResult): string {
  const sets = new Map(input.policySets.map((s) => [s.id, s]));
  return renderReport(
    result.outcomes.map((o) => {
      const set = sets.get(o.policySetId);
      const listed = set?.policies.find((p) => p.name === o.policyName);
      return {
        setName: set?.name ?? o.policySetId,
        policyName: o.policyName,
        enforcementLevel: listed?.enforcementLevel ?? o.enforcementLevel,
        passed: o.passed,
        lines: o.lines,
      };
    }),
  );
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

const backoffMs = (pollMs: number, failures: number) =>
  Math.min(Math.max(pollMs, 250) * 2 ** Math.min(failures, 10), 30_000);

const describe = (err: unknown): string => (err instanceof Error ? err.message : String(err));
