import * as grpc from '@grpc/grpc-js';
import {
  contracts,
  evaluationEnforcementLevel,
  evaluationPolicyKind,
  policyCheckStatus,
  type runsV1,
  timestampToIso,
} from '@policyhub/contracts';
import { createClient, deadline, readServiceError, workerCredential } from '@policyhub/grpc-runtime';
import type { Logger } from '@policyhub/telemetry';
import { archiveDirectory, extractArchive } from '@policyhub/archive-reader';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildEngineRequest,
  type EngineResult,
  type PreparedArchive,
  parseEngineResult,
} from './engine-contract.js';
import { type EngineRun, runEngine } from './engine-process.js';
import { type EngineSetup, missingEngineMessage } from './engines.js';
import { downloadObject } from './input-files.js';
import { renderReport } from './report.js';
import { evaluateWithSentinel } from './sentinel/adapter.js';
import { readSentinelConfiguration, SENTINEL_CONFIG_FILE } from './sentinel/configuration.js';

export interface WorkerOptions {
  runsAddress: string;
  /** The evaluator's bearer token (one of runs' EVALUATOR_TOKENS). */
  token: string;
  /** The engines found at start (detectEngines). */
  engines: EngineSetup;
  /** Where per-check working directories are created (default: the OS temp directory). */
  workRoot?: string;
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
        if (failures > 0) logger.info({ runs: this.options.runsAddress }, 'runs answers again; claiming');
        failures = 0;
      } catch (err) {
        failures++;
        logger.warn({ err: describe(err), failures }, 'evaluator cycle failed; retrying');
      }
      if (claimed) continue;
      if (failures === 0) await this.idle(this.options.pollIntervalMs);
      else await this.pauseAfterFailure(backoffMs(this.options.pollIntervalMs, failures));
    }
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
    const ref = { policyCheckId: lease.policyCheckId, leaseToken: lease.leaseToken };
    let workDir: string | undefined;
    try {
      let input: runsV1.GetPolicyCheckInputResponse__Output;
      try {
        input = await this.client.GetPolicyCheckInput(ref);
      } catch (err) {
        const remote = readServiceError(err);
        if (remote.code !== 'RUNS_PLAN_MISSING' && remote.code !== 'RUNS_POLICY_ARCHIVE_MISSING') throw err;
        // Nothing can bring the input back: decide now rather than after five leases.
        const message = remote.items.map((i) => i.detail ?? i.title).join('; ') || remote.details;
        log.warn({ error: message }, 'the check cannot be evaluated; reporting it as errored');
        await this.client.FailPolicyCheck({ ...ref, errorMessage: message });
        return;
      }
      workDir = await mkdtemp(join(this.options.workRoot ?? tmpdir(), 'policyhub-check-'));
      const started = Date.now();
      const outcome = await this.runEngines(input, ref, workDir, lost.signal);
      const durationMs = Date.now() - started;
      if (lost.signal.aborted) {
        log.warn('lease lost while the engine ran; leaving the check to its new holder');
        return;
      }
      if ('error' in outcome) {
        log.warn({ error: outcome.error }, 'evaluation failed; reporting the check as errored');
        await this.client.FailPolicyCheck({
          ...ref,
          errorMessage: outcome.error,
          report: outcome.report || undefined,
        });
        return;
      }
      try {
        const done = await this.client.CompletePolicyCheck({
          ...ref,
          outcomes: outcome.result.outcomes.map((o) => ({
            policySetId: o.policySetId,
            policyName: o.policyName,
            passed: o.passed,
            enforcementLevel: evaluationEnforcementLevel.fromWord(o.enforcementLevel),
          })),
          report: outcome.result.report ?? renderEngineReport(input, outcome.result),
          durationMs,
          engineDetailsJson: outcome.result.details ? JSON.stringify(outcome.result.details) : undefined,
        });
        if (done.status === 'POLICY_CHECK_STATUS_ERRORED') {
          log.warn(
            { error: done.errorMessage },
            'runs refused the evaluation as incomplete; the check is errored',
          );
        } else {
          log.info({ status: policyCheckStatus.toWord(done.status), durationMs }, 'policy check evaluated');
        }
      } catch (err) {
        const remote = readServiceError(err);
        if (remote.status !== grpc.status.INVALID_ARGUMENT) throw err;
        // The engine's answer cannot be taken (e.g. details that are not a JSON object).
        const problems = remote.items.map((i) => i.detail ?? i.title).join('; ') || remote.details;
        log.warn({ problems }, 'runs rejected the engine result; reporting the check as errored');
        await this.client.FailPolicyCheck({
          ...ref,
          errorMessage: `the engine's result does not match the policy check: ${problems}`,
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
      if (workDir) await rm(workDir, { recursive: true, force: true }).catch(() => {});
    }
  }

  /**
   * Picks the engine for the check's kinds (EVALUATOR_COMMAND for any kind; else Sentinel for
   * kind_a; nothing else), fetches the plan and archives into `workDir`, and runs it. A missing
   * engine, an unreadable input or an engine failure come back as an error for the check.
   */
  private async runEngines(
    input: runsV1.GetPolicyCheckInputResponse__Output,
    ref: { policyCheckId: string; leaseToken: string },
    workDir: string,
    signal: AbortSignal,
  ): Promise<{ result: EngineResult } | { error: string; report: string }> {
    const { engines } = this.options;
    if (!engines.command) {
      const kinds = [...new Set(input.policySets.map((s) => evaluationPolicyKind.toWord(s.kind)))];
      const unsupported = kinds.find((k) => k !== 'kind_a') ?? (engines.sentinel ? undefined : 'kind_a');
      if (unsupported) {
        const error = missingEngineMessage(unsupported, engines);
        return { error, report: `Policy check errored: ${error}\n` };
      }
    }
    let files: Awaited<ReturnType<EvaluatorWorker['fetchInput']>>;
    try {
      files = await this.fetchInput(input, ref, workDir);
    } catch (err) {
      if (readServiceError(err).code === 'RUNS_LEASE_LOST') throw err;
      const error = `could not prepare the check's input: ${describe(err)}`;
      return { error, report: `Policy check errored: ${error}\n` };
    }
    if (engines.command) return this.runCommand(engines.command, input, files, workDir, signal);
    return evaluateWithSentinel({
      sentinel: engines.sentinel!,
      workDir,
      planFile: files.planPath,
      run: {
        id: input.runId,
        createdAt: timestampToIso(input.run?.createdAt) ?? '',
        message: input.run?.message ?? '',
        speculative: input.run?.planOnly ?? false,
        organization: input.organization,
        workspaceId: input.workspaceId,
      },
      sets: input.policySets.map((s) => {
        const archive = files.archives.get(s.id);
        return {
          id: s.id,
          name: s.name,
          parameters: { ...s.parameters },
          policies: s.policies.map((p) => ({
            name: p.name,
            enforcementLevel: evaluationEnforcementLevel.toWord(p.enforcementLevel),
            code: p.code ?? '',
          })),
          archiveDir: archive?.archiveDir,
          policiesPath: archive?.policiesPath ?? '',
        };
      }),
      timeoutMs: this.options.timeoutMs,
      signal,
    });
  }

  /**
   * The plan and every archive, streamed from runs into `workDir` (checked against their size
   * and SHA-256); archives are extracted and, for kind_a, their sentinel.hcl is read.
   */
  private async fetchInput(
    input: runsV1.GetPolicyCheckInputResponse__Output,
    ref: { policyCheckId: string; leaseToken: string },
    workDir: string,
  ) {
    if (!input.plan) throw new Error('the input names no plan');
    const planPath = join(workDir, 'plan.json');
    await downloadObject(this.readObject(ref, input.plan.key), input.plan, planPath);
    const archives = new Map<string, PreparedArchive>();
    for (const [i, set] of input.policySets.entries()) {
      if (!set.archive) continue;
      const policiesPath = archiveDirectory(set.policiesPath);
      if (policiesPath === undefined)
        throw new Error(`policy set ${set.name}: policies-path ${set.policiesPath} leaves the archive`);
      const archivePath = join(workDir, `archive-${i}.tar.gz`);
      const archiveDir = join(workDir, `archive-${i}`);
      await downloadObject(this.readObject(ref, set.archive.key), set.archive, archivePath);
      try {
        await extractArchive(createReadStream(archivePath), archiveDir);
      } catch (err) {
        throw new Error(`policy set ${set.name}: ${describe(err)}`);
      }
      let declared: PreparedArchive['declared'];
      if (set.kind === 'EVALUATION_POLICY_KIND_A') {
        const dir = policiesPath ? join(archiveDir, ...policiesPath.split('/')) : archiveDir;
        const shownAs = policiesPath ? `${policiesPath}/${SENTINEL_CONFIG_FILE}` : SENTINEL_CONFIG_FILE;
        try {
          declared = (await readSentinelConfiguration(dir, shownAs)).policies;
        } catch (err) {
          throw new Error(`policy set ${set.name}: ${describe(err)}`);
        }
      }
      archives.set(set.id, { archivePath, archiveDir, policiesPath, declared });
    }
    return { planPath, archives };
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

  /** The generic engine command (contract version 2). */
  private async runCommand(
    command: string[],
    input: runsV1.GetPolicyCheckInputResponse__Output,
    files: { planPath: string; archives: ReadonlyMap<string, PreparedArchive> },
    workDir: string,
    signal: AbortSignal,
  ): Promise<{ result: EngineResult } | { error: string; report: string }> {
    const request = JSON.stringify(buildEngineRequest(input, { workDir, ...files }));
    let run: EngineRun;
    try {
      run = await runEngine(command, request, { timeoutMs: this.options.timeoutMs, signal, cwd: workDir });
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
    let result: EngineResult;
    try {
      result = parseEngineResult(run.stdout);
    } catch (err) {
      return { error: describe(err), report: `Policy check errored: ${describe(err)}${stderr}` };
    }
    // Archive policies' levels are the configuration's (runs uses them too); show them in the report.
    for (const o of result.outcomes) {
      const declared = files.archives.get(o.policySetId)?.declared?.find((p) => p.name === o.policyName);
      if (declared) o.enforcementLevel = declared.enforcementLevel;
    }
    return { result };
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
        policyName: o.file ?? o.policyName,
        enforcementLevel: listed
          ? evaluationEnforcementLevel.toWord(listed.enforcementLevel)
          : o.enforcementLevel,
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
