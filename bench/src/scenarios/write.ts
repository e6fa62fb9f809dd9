import type { BenchConfig } from '../config.js';
import { load } from '../measure.js';
import type { Section } from '../report.js';
import { interleave, ratios, showRatio } from '../rounds.js';
import type { BenchSystem } from '../system.js';

/**
 * PATCH /workspaces/:id (a description change: one visibility check and one UPDATE in admin-orgs)
 * vs GET /workspaces/:id on the same system, interleaved rounds. The ratio shows what a write
 * costs over a read of the same row; a `Get*` pre-read before the body adds a
 * whole read to every write.
 */
export async function writeScenario(b: BenchSystem, cfg: BenchConfig) {
  const org = `bench-w-${Date.now()}`;
  await b.api('POST', '/organizations', {
    data: { type: 'organizations', attributes: { name: org, email: 'b@example.com' } },
  });
  const ws = await b.api('POST', `/organizations/${org}/workspaces`, {
    data: { type: 'workspaces', attributes: { name: 'written' } },
  });
  const url = `${b.baseUrl}/api/v2/workspaces/${ws.data.id}`;
  const body = JSON.stringify({
    data: { type: 'workspaces', id: ws.data.id, attributes: { description: 'bench' } },
  });
  const write = (seconds: number) =>
    load(`${b.mode}: PATCH /workspaces/:id`, {
      url,
      method: 'PATCH',
      body,
      headers: { ...b.auth, 'content-type': 'application/vnd.api+json' },
      duration: seconds,
      connections: cfg.connections,
      pids: b.pids(),
    });
  const read = (seconds: number) =>
    load(`${b.mode}: GET /workspaces/:id`, {
      url,
      headers: b.auth,
      duration: seconds,
      connections: cfg.connections,
      pids: b.pids(),
    });
  await write(cfg.warmupSeconds);
  await read(cfg.warmupSeconds);
  const rounds = await interleave(cfg.rounds, [() => read(cfg.seconds), () => write(cfg.seconds)]);
  const throughput = ratios(rounds.map(([r, w]) => w!.rps / r!.rps));
  const cpu = ratios(
    rounds.map(([r, w]) => (w!.cpuMsPerRequest ?? Number.NaN) / (r!.cpuMsPerRequest ?? Number.NaN)),
  );
  const nonOk = rounds.flat().reduce((n, r) => n + r.non2xx + r.errors, 0);
  const section: Section = {
    title: 'Write (PATCH /workspaces/:id) vs read of the same workspace, `npm start` (embedded)',
    rows: rounds.flat(),
    metrics: {
      'PATCH req/s ÷ GET req/s (median of rounds)': showRatio(throughput),
      'PATCH CPU per request ÷ GET CPU per request': showRatio(cpu),
      'non-2xx and errors': nonOk,
    },
  };
  return { section, throughput, cpu, nonOk };
}
