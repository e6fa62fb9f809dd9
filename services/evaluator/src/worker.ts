import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import {
  contracts,
  evaluationEnforcementLevel,
  evaluationPolicyResult,
  policyCheckStatus,
  type runsV1,
} from '@policyhub/contracts';
import { createClient, deadline, readServiceError, workerCredential } from '@policyhub/grpc-runtime';
import type { Logger } from '@policyhub/telemetry';
import { kindsOf, type PreparedCheck, prepareCheck } from './check-input.js';
import { type CheckEvaluation, evaluateCheck, missingEngine } from './evaluate-check.js';
import type { EngineRegistry } from './engines/registry.js';
import { reportable, reportableFailure } from './reportable.js';
import { maskEvaluation, sensitiveValues } from './secrets.js';

export interface WorkerOptions {
  runsAddress: string;
  /** The evaluator's bearer token (one of runs' EVALUATOR_TOKENS). */
  token: string;
  /** The engine of each kind, found at start (detectEngines). */
  engines: EngineRegistry;
  /** Where per-check working directories are created (default: the OS temp directory). */
  workRoot?: string;
  evaluatorId: string;
  pollIntervalMs: number;
  leaseSeconds: number;
  timeoutMs: number;
  /** Checks evaluated at once (EVALUATOR_CONCURRENCY); default 1. */
  concurrency?: number;
  logger: Logger;
}

type Lease = runsV1.PolicyCheckLease__Output;

/**
 * The evaluator worker: claims queued policy checks, runs the engines on them and reports the
 * outcomes (or the error), keeping each lease alive meanwhile. Up to `concurrency` checks at
 * once; runs decides which check each claim gets, in turn across organizations (ADR 0052). If the
 * worker dies, its leases expire and other workers take over.
 */
export class EvaluatorWorker {
  private readonly client;
  private stopping = false;
  private wake: (() => void) | undefined;
  /** wakeUp() was called since the last claim began: claim again before idling. */
  private wokenUp = false;
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

  /**
   * Work was queued (a notification from runs): claim now instead of at the end of the poll
   * pause. The poll stays as the backstop; a wake-up while every slot is busy changes nothing
   * (the loop claims as soon as one frees).
   */
  wakeUp(): void {
    this.wokenUp = true;
    this.wake?.();
  }

  /** Stops claiming; resolves once the checks in hand (if any) are reported. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    this.client.close();
  }

  /**
   * One claim loop feeds up to `concurrency` evaluations. Only a failed claim backs off (runs is
   * unreachable or refusing): a check whose evaluation or report failed is logged and left to its
   * lease, and the loop claims the next one at once, so one bad check never stalls the others.
   */
  private async run(): Promise<void> {
    const { logger } = this.options;
    const concurrency = Math.max(1, this.options.concurrency ?? 1);
    const inHand = new Set<Promise<void>>();
    let failures = 0;
    while (!this.stopping) {
      if (inHand.size >= concurrency) {
        await Promise.race(inHand); // evaluations never reject (see below)
        continue;
      }
      let lease: Lease | undefined;
      this.wokenUp = false;
      try {
        lease = await this.claim();
        if (failures > 0) logger.info({ runs: this.options.runsAddress }, 'runs answers again; claiming');
        failures = 0;
      } catch (err) {
        failures++;
        // One failed claim (runs restarting, or stopping with us on npm start's Ctrl-C) is logged
        // at info; a warning once it fails again. While stopping, nothing is worth a warning.
        const entry = { err: describe(err), failures };
        if (this.stopping) logger.debug(entry, 'evaluator cycle failed while stopping');
        else if (failures === 1) logger.info(entry, 'evaluator cycle failed; retrying');
        else logger.warn(entry, 'evaluator cycle failed; retrying');
        await this.pauseAfterFailure(backoffMs(this.options.pollIntervalMs, failures));
        continue;
      }
      if (!lease) {
        // Woken while this claim was on its way: the work may have committed after it looked.
        if (!this.wokenUp) await this.idle(this.options.pollIntervalMs);
        continue;
      }
      const claimed = lease;
      const task: Promise<void> = this.evaluate(claimed)
        .catch((err) =>
          logger.warn(
            { err: describe(err), policyCheckId: claimed.policyCheckId },
            'could not evaluate or report the check; it is claimable again once its lease expires',
          ),
        )
        .finally(() => inHand.delete(task));
      inHand.add(task);
    }
    await Promise.all(inHand);
  }

  /**
   * After a failed cycle: if runs answered (with an error), back off for `ms` (doubling, at most
   * 30 s) instead of hammering it. If it could not be reached (stopped, restarting), wait at most
   * `ms` for the channel to connect again and claim as soon as it has: a restarted runs server on
   * the same address is picked up within the channel's reconnect backoff (≤ 2 s), not after a
   * long sleep.
   */
  private async pauseAfterFailure(ms: number): Promise<void> {
    const raw = this.client.raw;
    if (raw.getChannel().getConnectivityState(false) === grpc.connectivityState.READY) return this.idle(ms);
    const idle = this.idle(ms);
    const endIdle = this.wake;
    await Promise.race([
      idle,
      new Promise<void>((resolve) => raw.waitForReady(Date.now() + ms, () => resolve())),
    ]);
    endIdle?.();
  }

  /** A lease on the check runs hands out next; undefined when none is waiting. */
  private async claim(): Promise<Lease | undefined> {
    const res = await this.client.ClaimPolicyCheck({
      evaluatorId: this.options.evaluatorId,
      leaseSeconds: this.options.leaseSeconds,
      includePolicyEvaluations: true,
    });
    return res.claimed && res.lease ? res.lease : undefined;
  }

  private async evaluate(lease: Lease): Promise<void> {
    const { logger } = this.options;
    const log = logger.child(
      lease.policyEvaluation
        ? { policyEvaluationId: lease.policyCheckId, attempt: lease.attempt }
        : { policyCheckId: lease.policyCheckId, attempt: lease.attempt },
    );
    const subject = lease.policyEvaluation ? 'policy evaluation' : 'check';
    const lost = new AbortController();
    const keepAlive = this.keepLeaseAlive(lease, lost);
    const ref = { policyCheckId: lease.policyCheckId, leaseToken: lease.leaseToken };
    let workDir: string | undefined;
    try {
      let input: runsV1.GetPolicyCheckInputResponse__Output;
      try {
        input = await this.client.GetPolicyCheckInput(ref);
      } catch (err) {
        const remote = readServiceError(err);
        if (!INPUT_GONE.has(remote.code ?? '')) throw err;
        // Nothing can bring the input back: decide now rather than after five leases.
        const message = remote.items.map((i) => i.detail ?? i.title).join('; ') || remote.details;
        log.warn({ error: message }, `the ${subject} cannot be evaluated; reporting it as errored`);
        await this.client.FailPolicyCheck({ ...ref, ...reportableFailure(message, undefined) });
        return;
      }
      workDir = await mkdtemp(join(this.options.workRoot ?? tmpdir(), 'policyhub-check-'));
      const started = Date.now();
      // Sensitive parameter values are masked in everything reported or logged from here on.
      const outcome = maskEvaluation(
        await this.runEngines(input, ref, workDir, lost.signal),
        sensitiveValues(input),
      );
      const durationMs = Date.now() - started;
      if (lost.signal.aborted) {
        log.warn('lease lost while the engine ran; leaving the check to its new holder');
        return;
      }
      if ('error' in outcome) {
        log.warn({ error: outcome.error }, `evaluation failed; reporting the ${subject} as errored`);
        await this.client.FailPolicyCheck({ ...ref, ...reportableFailure(outcome.error, outcome.report) });
        return;
      }
      const result = reportable(outcome);
      if ('error' in result) {
        log.warn({ error: result.error }, `the engine result cannot be reported; the ${subject} is errored`);
        const report = `Policy check errored: ${result.error}\n`;
        await this.client.FailPolicyCheck({ ...ref, ...reportableFailure(result.error, report) });
        return;
      }
      try {
        const done = await this.client.CompletePolicyCheck({
          ...ref,
          // An errored policy counts as failed at its level in a policy check, as upstream does;
          // a policy evaluation keeps it errored (`result`), with the lines that explain it.
          outcomes: result.outcomes.map((o) => ({
            policySetId: o.policySetId,
            policyName: o.policyName,
            passed: o.result === 'passed',
            enforcementLevel: o.enforcementLevel && evaluationEnforcementLevel.fromWord(o.enforcementLevel),
            result: evaluationPolicyResult.fromKnownWord(o.result),
            output: o.lines,
            query: o.query,
            description: o.description,
          })),
          report: result.report,
          durationMs,
          engineDetailsJson: result.detailsJson,
        });
        if (done.errorMessage) {
          log.warn(
            { error: done.errorMessage },
            `runs refused the evaluation as incomplete; the ${subject} is errored`,
          );
        } else {
          const status = done.evaluationStatus ?? policyCheckStatus.toWord(done.status);
          log.info(
            { status, durationMs },
            `${lease.policyEvaluation ? 'policy evaluation' : 'policy check'} evaluated`,
          );
        }
      } catch (err) {
        const remote = readServiceError(err);
        if (remote.status !== grpc.status.INVALID_ARGUMENT) throw err;
        // The engine's answer cannot be taken (e.g. details that are not a JSON object).
        const problems = remote.items.map((i) => i.detail ?? i.title).join('; ') || remote.details;
        log.warn({ problems }, `runs rejected the engine result; reporting the ${subject} as errored`);
        await this.client.FailPolicyCheck({
          ...ref,
          ...reportableFailure(`the engine's result does not match the policy check: ${problems}`, undefined),
        });
      }
    } catch (err) {
      if (readServiceError(err).code === 'RUNS_LEASE_LOST') {
        log.warn(`lease lost; another evaluator holds the ${subject} now`);
        return;
      }
      throw err;
    } finally {
      lost.abort();
      await keepAlive;
      if (workDir) await rm(workDir, { recursive: true, force: true }).catch(() => {});
    }
  }

  /**
   * Checks that every kind of the check has an engine (before anything is downloaded), streams
   * the plan and archives into `workDir`, and runs the engines. A missing engine, an unreadable
   * input or an engine failure come back as an error for the check.
   */
  private async runEngines(
    input: runsV1.GetPolicyCheckInputResponse__Output,
    ref: { policyCheckId: string; leaseToken: string },
    workDir: string,
    signal: AbortSignal,
  ): Promise<CheckEvaluation> {
    const missing = missingEngine(this.options.engines, kindsOf(input));
    if (missing) return { error: missing, report: `Policy check errored: ${missing}\n` };
    let check: PreparedCheck;
    try {
      check = await prepareCheck(input, (key) => this.readObject(ref, key), workDir);
    } catch (err) {
      if (readServiceError(err).code === 'RUNS_LEASE_LOST') throw err;
      const error = `could not prepare the check's input: ${describe(err)}`;
      return { error, report: `Policy check errored: ${error}\n` };
    }
    return evaluateCheck({
      registry: this.options.engines,
      check,
      checkId: input.policyCheckId,
      dir: workDir,
      timeoutMs: this.options.timeoutMs,
      signal,
    });
  }

  private async *readObject(ref: { policyCheckId: string; leaseToken: string }, key: string) {
    const call = this.client.raw.ReadPolicyCheckObject(
      { ...ref, key },
      this.client.metadata(),
      deadline({ deadlineMs: this.options.timeoutMs }),
    );
    try {
      for await (const chunk of call as AsyncIterable<{ data: Buffer }>) yield chunk;
    } finally {
      call.cancel();
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

/**
 * Input errors nothing will cure: the check is reported errored at once rather than after every
 * lease (a plan or archive gone from storage; a sensitive parameter policy-sets cannot decrypt).
 */
const INPUT_GONE = new Set([
  'RUNS_PLAN_MISSING',
  'RUNS_POLICY_ARCHIVE_MISSING',
  'POLICY_SETS_PARAMETER_UNREADABLE',
]);

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
