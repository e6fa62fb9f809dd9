import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectEngines, type EngineInput } from '@policyhub/evaluator';
import { repoRoot } from '../child.js';
import type { BenchConfig } from '../config.js';
import { median, round, summarize } from '../measure.js';
import type { Section } from '../report.js';
import { interleave, ratios, showRatio } from '../rounds.js';
import type { BenchSystem } from '../system.js';

/**
 * The project's test STAND-IN for the Sentinel CLI (the real binary cannot be installed here): a
 * Node script answering `sentinel version` and `sentinel apply -json` for a tiny policy subset.
 * The pipeline scenario runs the system with it as the kind_a engine (SENTINEL_BIN), and times
 * it alone as the baseline.
 */
export const SENTINEL_STANDIN = join(repoRoot, 'e2e/test/support/engines/sentinel-standin/sentinel');

/** What the system is started with for this scenario (the built-in evaluator finds the engine). */
export const pipelineEnv = (): Record<string, string> => ({ SENTINEL_BIN: SENTINEL_STANDIN });

const POLICY_CODE =
  'import "tfplan/v2" as tfplan\nforbidden_types = ["aws_s3_bucket"]\nmain = rule { true }\n';

/** A plan of 20 created resources, none forbidden: the check passes. */
const PLAN = Buffer.from(
  JSON.stringify({
    format_version: '1.2',
    resource_changes: Array.from({ length: 20 }, (_, i) => ({
      address: `aws_instance.r${i}`,
      mode: 'managed',
      type: 'aws_instance',
      name: `r${i}`,
      change: { actions: ['create'], before: null, after: { ami: 'ami-123', instance_type: 't3.micro' } },
    })),
  }),
);

/**
 * How often the client asks whether the verdict is in. Not the measurement's resolution: the
 * verdict's time is the check's own status timestamp (ms); a slow poll leaves the CPU to the
 * system and the engine.
 */
const POLL_MS = 50;
const BURST_POLL_MS = 20;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Plan in → verdict through `npm start` (gateway, runs, storage, the built-in evaluator) with
 * the Sentinel stand-in as engine, against the same engine alone on the same input (the
 * evaluator's own Sentinel adapter: mock modules, configuration, one `sentinel apply -json`),
 * timed in the same rounds.
 *
 * Sequential: one plan at a time, PUT /plans/:id/json-output until the run's policy check is
 * no longer `queued` (polled every 50 ms; timed to the check's own status timestamp). Burst: `burstRuns` plans PUT at once, until the last
 * verdict (polled every 20 ms), against the same number of engine runs at the evaluator's
 * concurrency.
 */
export async function pipelineScenario(b: BenchSystem, cfg: BenchConfig, pollOnly?: BenchSystem) {
  const main = await pipelineFixture(b, cfg.burstRounds);
  const slow = pollOnly ? await pipelineFixture(pollOnly, 0) : undefined;
  const { org, setId, policyId } = main;

  // The baseline: the evaluator's Sentinel adapter with the same stand-in, plan and policy.
  const registry = await detectEngines({ ...process.env, SENTINEL_BIN: SENTINEL_STANDIN }, undefined);
  const engine = registry.engineFor('kind_a');
  if ('missing' in engine) throw new Error(engine.missing);
  const engineAlone = async (): Promise<number> => {
    const dir = await mkdtemp(join(tmpdir(), 'policyhub-bench-engine-'));
    try {
      const planFile = join(dir, 'plan.json');
      await writeFile(planFile, PLAN);
      const workDir = join(dir, 'engine');
      await mkdir(workDir, { mode: 0o700 });
      const t0 = performance.now();
      const out = await engine.evaluate(engineInput(planFile, workDir, org, setId, policyId));
      const ms = performance.now() - t0;
      if ('error' in out) throw new Error(`engine alone: ${out.error}`);
      if (!out.outcomes.every((o) => o.result === 'passed')) throw new Error('engine alone: not passed');
      return ms;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  // Warm-up (unrecorded): the first requests and spawns of a process are slower.
  for (let i = 0; i < Math.max(2, cfg.pipelineSamples >> 1); i++) {
    await main.throughPipeline();
    if (slow) await slow.throughPipeline();
    await engineAlone();
  }

  const samples = async <T>(fn: () => Promise<T>) => {
    const out: T[] = [];
    for (let i = 0; i < cfg.pipelineSamples; i++) out.push(await fn());
    return out;
  };
  const started = performance.now();
  const rounds = await interleave(cfg.rounds, [
    async () => ({ passages: await samples(main.throughPipeline), engine: [] as number[] }),
    async () => ({ passages: [] as Passage[], engine: await samples(engineAlone) }),
    async () => ({ passages: slow ? await samples(slow.throughPipeline) : [], engine: [] as number[] }),
  ]);
  const seconds = (performance.now() - started) / 1000 / (slow ? 3 : 2);
  const totals = (r: (typeof rounds)[number], i: number) => r[i]!.passages.map((p) => p.total);
  const overheads = (r: (typeof rounds)[number], i: number) => r[i]!.passages.map((p) => p.total - p.engine);
  const pipelineAll = rounds.flatMap((r) => totals(r, 0));
  const engineAll = rounds.flatMap((r) => r[1]!.engine);
  const pipelineRow = summarize(`${b.mode}: plan in → verdict, sequential`, pipelineAll, seconds);
  const engineRow = summarize(
    'baseline: the engine alone (Sentinel adapter + stand-in CLI)',
    engineAll,
    seconds,
  );
  const ownRow = summarize(
    `${b.mode}: plan in → verdict minus the check's own engine time (duration-ms)`,
    rounds.flatMap((r) => overheads(r, 0)),
    seconds,
  );
  const rows = [pipelineRow, engineRow, ownRow];
  // Per round: pipeline p50 minus engine p50 of the same round (the machine drifts between rounds).
  const perRoundP50 = rounds.map((r) => round(median(totals(r, 0)) - median(r[1]!.engine)));
  const overheadP50 = round(median(perRoundP50));
  const overheadP95 = round(pipelineRow.p95 - engineRow.p95);
  const p50Ratio = ratios(rounds.map((r) => median(totals(r, 0)) / median(r[1]!.engine)));
  const metrics: Section['metrics'] = {
    'sequential samples per side (rounds × per round)': `${cfg.rounds} × ${cfg.pipelineSamples}`,
    'verdicts seen': [...main.verdicts].map(([k, n]) => `${k}: ${n}`).join(', '),
    'p50 overhead over the engine: pipeline p50 − engine p50 within each round, median (ms)': `${overheadP50} (rounds: ${perRoundP50.join(', ')})`,
    'p95 overhead over the engine: p95 − p95 over all samples (ms)': overheadP95,
    'pipeline p50 ÷ engine p50, per round': showRatio(p50Ratio),
  };
  let wakeUpRatio: ReturnType<typeof ratios> | undefined;
  if (slow) {
    rows.push(
      summarize(
        `${b.mode}, EVALUATOR_WAKE_UPS=false: plan in → verdict`,
        rounds.flatMap((r) => totals(r, 2)),
        seconds,
      ),
      summarize(
        `${b.mode}, EVALUATOR_WAKE_UPS=false: minus the check's own engine time`,
        rounds.flatMap((r) => overheads(r, 2)),
        seconds,
      ),
    );
    wakeUpRatio = ratios(rounds.map((r) => median(overheads(r, 0)) / median(overheads(r, 2))));
    metrics["overhead beyond the check's own engine time, wake-ups ÷ polling only (p50 per round)"] =
      showRatio(wakeUpRatio);
  }

  // Burst: `burstRuns` plans at once, against as many engine runs at the evaluator's concurrency.
  const concurrency = cfg.evaluatorConcurrency ?? availableParallelism();
  const engineBurst = async (): Promise<number> => {
    const t0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < cfg.burstRuns) await engineAlone();
      }),
    );
    return performance.now() - t0;
  };
  const bursts = await interleave(cfg.burstRounds, [() => main.burst(cfg.burstRuns), engineBurst]);
  const burstMs = median(bursts.map((r) => r[0]!));
  const engineBurstMs = median(bursts.map((r) => r[1]!));
  const formulaMs = (cfg.burstRuns * median(engineAll)) / concurrency;
  const burstRatio = ratios(bursts.map((r) => r[0]! / formulaMs));
  Object.assign(metrics, {
    'evaluator concurrency (EVALUATOR_CONCURRENCY default: cores)': concurrency,
    [`burst of ${cfg.burstRuns}: time to the last verdict, per round (ms)`]: bursts
      .map((r) => round(r[0]!))
      .join(', '),
    [`burst of ${cfg.burstRuns}: the engine alone at concurrency ${concurrency}, per round (ms)`]: bursts
      .map((r) => round(r[1]!))
      .join(', '),
    [`${cfg.burstRuns} × engine p50 (sequential) ÷ concurrency (ms)`]: round(formulaMs),
    'burst ÷ (runs × engine ÷ concurrency), per round': showRatio(burstRatio),
    'burst ÷ the engine alone at the same concurrency, per round': showRatio(
      ratios(bursts.map((r) => r[0]! / r[1]!)),
    ),
    'poll interval of the client (sequential: timed to the status timestamp; burst: resolution), ms': `${POLL_MS} / ${BURST_POLL_MS}`,
  });

  const section: Section = {
    title: `Pipeline: plan in (PUT /plans/:id/json-output) → verdict, ${b.mode}, Sentinel stand-in engine`,
    rows,
    metrics,
  };
  return {
    section,
    pipeline: pipelineRow,
    engine: engineRow,
    overheadP50,
    overheadP95,
    wakeUpRatio,
    burstMs: round(burstMs),
    engineBurstMs: round(engineBurstMs),
    formulaMs: round(formulaMs),
    burstRatio,
    concurrency,
  };
}

/** The check's input as the evaluator hands it to the engine (one set, one policy). */
function engineInput(
  planFile: string,
  workDir: string,
  org: string,
  setId: string,
  policyId: string,
): EngineInput {
  return {
    checkId: 'polchk-bench',
    run: {
      id: 'run-bench',
      createdAt: new Date().toISOString(),
      message: '',
      speculative: true,
      organization: { name: org },
      workspace: { id: 'ws-bench', name: 'sequential' },
    },
    planFile,
    workDir,
    sets: [
      {
        id: setId,
        name: 'guardrails',
        kind: 'kind_a',
        parameters: {},
        policies: [{ id: policyId, name: 'no-s3', enforcementLevel: 'hard-mandatory', code: POLICY_CODE }],
      },
    ],
    timeoutMs: 60_000,
    signal: new AbortController().signal,
  };
}

export interface Passage {
  /** PUT start → the check seen decided (ms). */
  total: number;
  /** The check's own engine time as the evaluator reported it (`duration-ms`). */
  engine: number;
}

/**
 * An organization with one policy set (one hard-mandatory policy) on a workspace for sequential
 * plans and one per burst; `throughPipeline` sends one plan and waits for its check's verdict.
 */
async function pipelineFixture(b: BenchSystem, bursts: number) {
  const org = `pipeline-${Date.now()}`;
  await b.api('POST', '/organizations', {
    data: { type: 'organizations', attributes: { name: org, email: 'b@example.com' } },
  });
  const workspace = async (name: string) =>
    (
      await b.api('POST', `/organizations/${org}/workspaces`, {
        data: { type: 'workspaces', attributes: { name } },
      })
    ).data.id as string;
  const workspaces = [await workspace('sequential')];
  for (let i = 0; i < bursts; i++) workspaces.push(await workspace(`burst-${i}`));
  const policy = await b.api('POST', `/organizations/${org}/policies`, {
    data: { type: 'policies', attributes: { name: 'no-s3', 'enforcement-level': 'hard-mandatory' } },
  });
  const upload = await fetch(`${b.baseUrl}/api/v2/policies/${policy.data.id}/upload`, {
    method: 'PUT',
    headers: { ...b.auth, 'content-type': 'application/octet-stream' },
    body: POLICY_CODE,
  });
  if (upload.status >= 300) throw new Error(`policy upload → ${upload.status} ${await upload.text()}`);
  const set = await b.api('POST', `/organizations/${org}/policy-sets`, {
    data: {
      type: 'policy-sets',
      attributes: { name: 'guardrails' },
      relationships: {
        policies: { data: [{ type: 'policies', id: policy.data.id }] },
        workspaces: { data: workspaces.map((id) => ({ type: 'workspaces', id })) },
      },
    },
  });

  const newRun = async (ws: string) => {
    const run = await b.api('POST', '/runs', {
      data: {
        type: 'runs',
        attributes: { 'plan-only': true },
        relationships: { workspace: { data: { type: 'workspaces', id: ws } } },
      },
    });
    return { id: run.data.id as string, planId: run.data.relationships.plan.data.id as string };
  };
  const putPlan = async (planId: string) => {
    const res = await fetch(`${b.baseUrl}/api/v2/plans/${planId}/json-output`, {
      method: 'PUT',
      headers: { ...b.auth, 'content-type': 'application/json' },
      body: PLAN,
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`PUT plan → ${res.status} ${text}`);
  };
  type Check = {
    attributes: {
      status: string;
      'status-timestamps'?: Record<string, string>;
      result?: { 'duration-ms'?: number } | null;
    };
  };
  const checkOf = async (runId: string): Promise<Check | undefined> => {
    const res = await fetch(`${b.baseUrl}/api/v2/runs/${runId}/policy-checks`, { headers: b.auth });
    const body = (await res.json()) as { data: Check[] };
    return body.data[0];
  };
  const verdicts = new Map<string, number>();
  /** One plan in → its check decided. */
  const throughPipeline = async (): Promise<Passage> => {
    const run = await newRun(workspaces[0]!);
    const t0 = Date.now();
    await putPlan(run.planId);
    for (;;) {
      const check = await checkOf(run.id);
      const status = check?.attributes.status;
      if (status && status !== 'queued') {
        // When runs recorded the verdict (the same machine's clock), not when this poll saw it.
        const decided = Math.max(
          ...Object.values(check?.attributes['status-timestamps'] ?? {}).map(Date.parse),
        );
        const total = decided - t0;
        verdicts.set(status, (verdicts.get(status) ?? 0) + 1);
        return { total, engine: check?.attributes.result?.['duration-ms'] ?? Number.NaN };
      }
      await sleep(POLL_MS);
    }
  };
  let burstWorkspace = 1;
  /** `runs` plans PUT at once → the last verdict (ms). */
  const burst = async (runs: number): Promise<number> => {
    const ws = workspaces[burstWorkspace++]!;
    const created = [];
    for (let i = 0; i < runs; i++) created.push(await newRun(ws));
    const t0 = performance.now();
    await Promise.all(created.map((r) => putPlan(r.planId)));
    const open = `${b.baseUrl}/api/v2/workspaces/${ws}/runs?filter%5Bstatus%5D=pending,policy_checking&page%5Bsize%5D=1`;
    for (;;) {
      const res = await fetch(open, { headers: b.auth });
      const body = (await res.json()) as { meta: { pagination: { 'total-count': number } } };
      if (body.meta.pagination['total-count'] === 0) return performance.now() - t0;
      await sleep(BURST_POLL_MS);
    }
  };
  return {
    org,
    setId: set.data.id as string,
    policyId: policy.data.id as string,
    throughPipeline,
    burst,
    verdicts,
  };
}
