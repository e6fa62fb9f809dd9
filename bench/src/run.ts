import { cpus, loadavg, totalmem } from 'node:os';
import type { BenchConfig } from './config.js';
import { startDistributedSystem } from './distributed.js';
import { round } from './measure.js';
import type { BenchReport, Goal, Section } from './report.js';
import { growthScenario } from './scenarios/growth.js';
import { listScenario } from './scenarios/list.js';
import { orgSearchScenario } from './scenarios/org-search.js';
import { pipelineEnv, pipelineScenario } from './scenarios/pipeline.js';
import { pointReadScenario } from './scenarios/point-read.js';
import { uploadScenario } from './scenarios/upload.js';
import { writeScenario } from './scenarios/write.js';
import { startEmbeddedSystem } from './system.js';

const goal = (g: string, target: string, measured: string, met: boolean | null): Goal => ({
  goal: g,
  target,
  measured,
  met,
});

/** Every scenario of the bench, against `npm start` and the distributed processes. */
export async function runBench(
  cfg: BenchConfig,
  log: (line: string) => void = () => {},
): Promise<BenchReport> {
  const sections: Section[] = [];
  const goals: Goal[] = [];
  const machine = {
    cpus: cpus().length,
    model: cpus()[0]?.model ?? 'cpu',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    loadAverage: loadavg().map((l) => round(l)),
  };
  const add = (s: Section) => {
    sections.push(s);
    log(`done: ${s.title}`);
  };

  const runs = (name: string) => cfg.scenarios === undefined || cfg.scenarios.has(name);
  const report = (): BenchReport => ({
    date: new Date().toISOString(),
    quick: cfg.quick,
    machine,
    method: method(cfg),
    sections,
    goals,
  });
  const embedded = await startEmbeddedSystem(pipelineEnv());
  try {
    if (runs('point')) {
      const point = await pointReadScenario(embedded, cfg);
      add(point.section);
      goals.push(
        goal(
          'point read, `npm start`, req/s vs baseline',
          '≥ 0.50× (floor 0.35×)',
          `${point.throughput.median}× (${point.throughput.min}–${point.throughput.max})`,
          point.throughput.median >= 0.5,
        ),
        goal(
          'point read, `npm start`, p99 vs baseline p99',
          '≤ 3×',
          `${point.p99.median}× (${point.p99.min}–${point.p99.max})`,
          point.p99.median <= 3,
        ),
      );
    }
    if (runs('list')) {
      const list = await listScenario(embedded, cfg);
      add(list.section);
      goals.push(
        goal(
          'list of 20 sets with include=workspaces,policies, CPU per request vs plain list',
          '≤ 1.5×',
          `${list.cpu.median}× (${list.cpu.min}–${list.cpu.max}); the answer is ${round(list.bytes.include / list.bytes.plain)}× the bytes, CPU per byte ${list.perByte.median}×`,
          list.cpu.median <= 1.5,
        ),
      );
    }
    if (runs('search')) {
      const search = await orgSearchScenario(embedded, cfg);
      add(search.section);
      goals.push(
        goal(
          `admin search p95 over ${cfg.searchOrganizations} organizations, every term, 1 connection`,
          '≤ 25 ms',
          `worst ${Math.max(search.worstMatching, search.worstZero)} ms`,
          Math.max(search.worstMatching, search.worstZero) <= 25,
        ),
        goal(
          'admin search, zero-match terms no slower than matching ones (worst p95)',
          'zero-match ≤ matching',
          `${search.worstZero} ms vs ${search.worstMatching} ms`,
          search.worstZero <= search.worstMatching,
        ),
      );
    }
    if (runs('write')) add((await writeScenario(embedded, cfg)).section);
    if (runs('upload')) {
      const upload = await uploadScenario(embedded, cfg);
      add(upload.section);
      goals.push(
        goal(
          'upload PUT start → `ready`, `npm start`, p50',
          '≤ 10 ms',
          `${upload.readyP50} ms`,
          upload.readyP50 <= 10,
        ),
        goal(
          'upload PUT start → `ready` vs the same bytes to the object store + one committed row',
          '≤ 1.2×',
          `${upload.ratio.median}× (${upload.ratio.min}–${upload.ratio.max})`,
          upload.ratio.median <= 1.2,
        ),
        goal(
          `memory of a ${upload.bigBytes / 2 ** 20} MiB upload (peak RSS growth, gateway + storage; ${upload.bigBytes / 2 ** 22} MiB in brackets)`,
          'flat: < 64 MiB',
          `${upload.rssGrowthMiB} MiB (${upload.quarterGrowthMiB} MiB)`,
          upload.rssGrowthMiB < 64,
        ),
      );
    }
    if (runs('pipeline')) {
      // The same system with the wake-up off, interleaved: what the wake-up is worth in this run.
      const pollOnly = cfg.quick
        ? undefined
        : await startEmbeddedSystem({ ...pipelineEnv(), EVALUATOR_WAKE_UPS: 'false' });
      const pipeline = await pipelineScenario(embedded, cfg, pollOnly).finally(() => pollOnly?.stop());
      add(pipeline.section);
      goals.push(
        goal(
          'plan in → verdict, `npm start`, sequential p50 vs the engine alone',
          'p50 ≤ engine p50 + 100 ms',
          `${pipeline.pipeline.p50} ms vs ${pipeline.engine.p50} ms (+${pipeline.overheadP50} ms)`,
          pipeline.overheadP50 <= 100,
        ),
        goal(
          'plan in → verdict, `npm start`, sequential p95 vs the engine alone',
          'p95 ≤ engine p95 + 250 ms',
          `${pipeline.pipeline.p95} ms vs ${pipeline.engine.p95} ms (+${pipeline.overheadP95} ms)`,
          pipeline.overheadP95 <= 250,
        ),
        goal(
          `burst of ${cfg.burstRuns} plans, time to the last verdict vs ${cfg.burstRuns} × engine ÷ concurrency (${pipeline.concurrency})`,
          '≤ 1.2×',
          `${pipeline.burstMs} ms vs ${pipeline.formulaMs} ms: ${pipeline.burstRatio.median}× (${pipeline.burstRatio.min}–${pipeline.burstRatio.max}); the engine alone at that concurrency: ${pipeline.engineBurstMs} ms`,
          pipeline.burstRatio.median <= 1.2,
        ),
      );
    }
    if (runs('growth')) {
      const growth = await growthScenario(embedded, cfg);
      add(growth.section);
      goals.push(
        goal(
          `policy sets of one organization at ${growth.largeSets}: list page 1 and page 500, search[name] matching nothing, show with every include; worst p95, 1 connection`,
          '≤ 25 ms',
          growth.comparisons.map((c) => `${c.name}: ${c.large} ms`).join('; '),
          growth.worstLarge <= 25,
        ),
        goal(
          `the same requests, p95 at ${growth.largeSets} sets vs at 100 (worst ratio)`,
          '≤ 1.5×',
          growth.comparisons.map((c) => `${c.name}: ${round(c.large / c.small, 3)}×`).join('; '),
          growth.worstRatio <= 1.5,
        ),
        goal(
          'the same with 100,000 policy checks in the organization',
          'as above',
          'not measured by this bench',
          null,
        ),
      );
    }
  } finally {
    await embedded.stop();
  }

  if (cfg.distributed) {
    const distributed = await startDistributedSystem();
    try {
      if (runs('point')) {
        const point = await pointReadScenario(distributed, cfg);
        add(point.section);
        goals.push(
          goal(
            'point read, distributed processes (real gRPC), req/s vs baseline',
            '≥ 0.30×',
            `${point.throughput.median}× (${point.throughput.min}–${point.throughput.max})`,
            point.throughput.median >= 0.3,
          ),
        );
      }
      if (runs('upload')) {
        const upload = await uploadScenario(distributed, cfg);
        add(upload.section);
        goals.push(
          goal(
            'distributed upload over Kafka, PUT start → `ready`',
            'p50 ≤ 100 ms, p99 ≤ 250 ms',
            `p50 ${upload.readyP50} ms, p99 ${upload.readyP99} ms`,
            upload.readyP50 <= 100 && upload.readyP99 <= 250,
          ),
        );
      }
    } finally {
      await distributed.stop();
    }
  } else {
    goals.push(
      goal('point read, distributed processes (real gRPC), req/s vs baseline', '≥ 0.30×', 'not run', null),
      goal(
        'distributed upload over Kafka, PUT start → `ready`',
        'p50 ≤ 100 ms, p99 ≤ 250 ms',
        'not run',
        null,
      ),
    );
  }

  return report();
}

/** How this run measured (the report's header). */
const method = (cfg: BenchConfig): string[] => [
  `${cfg.rounds} rounds per comparison, system and baseline interleaved (order alternating each round); ratios taken within a round, median reported with the per-round values`,
  `${cfg.warmupSeconds} s of unrecorded load on each target before the first round; load phases ${cfg.seconds} s at ${cfg.connections} connections (autocannon, closed loop)`,
  'percentiles (nearest rank) from every response latency, not autocannon’s summary (which has p97.5, not p95)',
  'CPU per request: user + system CPU time of the server processes (/proc) during the phase ÷ responses',
  'the system runs with the Node flags of `npm start` (and the images); baselines are their own process on the same Postgres',
];
