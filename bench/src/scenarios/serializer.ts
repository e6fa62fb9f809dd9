import type { BenchConfig } from '../config.js';
import { load } from '../measure.js';
import type { Section } from '../report.js';
import { interleave, ratios, showRatio } from '../rounds.js';
import { type BenchSystem, startEmbeddedSystem } from '../system.js';
import { createListFixture } from './list.js';

/**
 * RESPONSE_SERIALIZER=schema (fast-json-stringify from the route schemas) vs `json`
 * (JSON.stringify), ADR 0031: two `npm start` systems side by side, each with the same fixtures,
 * the point read (GET /policy-sets/:id) and the list of 20 sets with include=workspaces,policies
 * run against both in interleaved rounds. Ratios are schema ÷ json within a round.
 */
export async function serializerScenario(cfg: BenchConfig) {
  const systems: BenchSystem[] = [];
  try {
    for (const serializer of ['json', 'schema']) {
      systems.push(await startEmbeddedSystem({ RESPONSE_SERIALIZER: serializer }));
    }
    const targets = await Promise.all(
      systems.map(async (b) => {
        const org = `ser-${Date.now()}`;
        await b.api('POST', '/organizations', {
          data: { type: 'organizations', attributes: { name: org, email: 'b@example.com' } },
        });
        const set = await b.api('POST', `/organizations/${org}/policy-sets`, {
          data: { type: 'policy-sets', attributes: { name: 'guardrails' } },
        });
        const list = await createListFixture(b);
        return { b, point: `${b.baseUrl}/api/v2/policy-sets/${set.data.id}`, list: list.url(true) };
      }),
    );
    const names = ['json', 'schema'];
    const phase = (which: 'point' | 'list', i: number) => (seconds: number) =>
      load(
        `RESPONSE_SERIALIZER=${names[i]}: ${which === 'point' ? 'GET /policy-sets/:id' : 'list 20 sets include=workspaces,policies'}`,
        {
          url: targets[i]![which],
          headers: targets[i]!.b.auth,
          duration: seconds,
          connections: which === 'point' ? cfg.connections : Math.max(1, cfg.connections >> 2),
          pids: targets[i]!.b.pids(),
        },
      );
    for (const which of ['point', 'list'] as const) {
      for (const i of [0, 1]) await phase(which, i)(cfg.warmupSeconds);
    }
    const rounds = await interleave(cfg.rounds, [
      () => phase('point', 0)(cfg.seconds),
      () => phase('point', 1)(cfg.seconds),
      () => phase('list', 0)(cfg.seconds),
      () => phase('list', 1)(cfg.seconds),
    ]);
    const cpu = (a: number, b: number) =>
      ratios(
        rounds.map((r) => (r[b]!.cpuMsPerRequest ?? Number.NaN) / (r[a]!.cpuMsPerRequest ?? Number.NaN)),
      );
    const rps = (a: number, b: number) => ratios(rounds.map((r) => r[b]!.rps / r[a]!.rps));
    const result = {
      pointRps: rps(0, 1),
      pointCpu: cpu(0, 1),
      listRps: rps(2, 3),
      listCpu: cpu(2, 3),
    };
    const nonOk = rounds.flat().reduce((n, r) => n + r.non2xx + r.errors, 0);
    const section: Section = {
      title: 'Response serializer: schema (fast-json-stringify) vs json (JSON.stringify), `npm start`',
      rows: rounds.flat(),
      metrics: {
        'point read req/s, schema ÷ json': showRatio(result.pointRps),
        'point read CPU per request, schema ÷ json': showRatio(result.pointCpu),
        'list with includes req/s, schema ÷ json': showRatio(result.listRps),
        'list with includes CPU per request, schema ÷ json': showRatio(result.listCpu),
        'non-2xx and errors': nonOk,
      },
    };
    return { section, ...result, nonOk };
  } finally {
    for (const b of systems) await b.stop();
  }
}
