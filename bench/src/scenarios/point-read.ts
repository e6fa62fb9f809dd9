import { startBaseline } from '../baseline.js';
import type { BenchConfig } from '../config.js';
import { load } from '../measure.js';
import type { Section } from '../report.js';
import { interleave, ratios, showRatio } from '../rounds.js';
import type { BenchSystem } from '../system.js';

/**
 * GET /policy-sets/:id through the gateway vs a bare fastify route doing the same single-row
 * primary-key read on the same Postgres, at `connections` connections, interleaved rounds.
 */
export async function pointReadScenario(b: BenchSystem, cfg: BenchConfig) {
  const org = `bench-${Date.now()}`;
  await b.api('POST', '/organizations', {
    data: { type: 'organizations', attributes: { name: org, email: 'b@example.com' } },
  });
  const set = await b.api('POST', `/organizations/${org}/policy-sets`, {
    data: { type: 'policy-sets', attributes: { name: 'guardrails' } },
  });
  const baseline = await startBaseline(b.databaseUrl, 'SELECT * FROM policy_sets.policy_sets WHERE id = $1');
  try {
    const system = (seconds: number) =>
      load(`${b.mode}: GET /policy-sets/:id`, {
        url: `${b.baseUrl}/api/v2/policy-sets/${set.data.id}`,
        headers: b.auth,
        duration: seconds,
        connections: cfg.connections,
        pids: b.pids(),
      });
    const base = (seconds: number) =>
      load('baseline: fastify + pg primary-key read', {
        url: baseline.rowUrl(set.data.id),
        duration: seconds,
        connections: cfg.connections,
        pids: [baseline.pid],
      });
    await system(cfg.warmupSeconds);
    await base(cfg.warmupSeconds);
    const rounds = await interleave(cfg.rounds, [() => base(cfg.seconds), () => system(cfg.seconds)]);
    const throughput = ratios(rounds.map(([bl, s]) => s!.rps / bl!.rps));
    const p50 = ratios(rounds.map(([bl, s]) => s!.p50 / bl!.p50));
    const p99 = ratios(rounds.map(([bl, s]) => s!.p99 / bl!.p99));
    const cpu = ratios(
      rounds.map(([bl, s]) => (s!.cpuMsPerRequest ?? Number.NaN) / (bl!.cpuMsPerRequest ?? Number.NaN)),
    );
    const nonOk = rounds.flat().reduce((n, r) => n + r.non2xx + r.errors, 0);
    const section: Section = {
      title: `Point read, ${b.mode === 'embedded' ? '`npm start` (embedded)' : 'distributed processes (real gRPC)'} vs bare fastify + pg`,
      rows: rounds.flat(),
      metrics: {
        'req/s ÷ baseline req/s (median of rounds)': showRatio(throughput),
        'p50 ÷ baseline p50': showRatio(p50),
        'p99 ÷ baseline p99': showRatio(p99),
        'CPU per request ÷ baseline CPU per request': showRatio(cpu),
        'non-2xx and errors': nonOk,
      },
    };
    return { section, throughput, p50, p99, cpu, nonOk };
  } finally {
    await baseline.close();
  }
}
