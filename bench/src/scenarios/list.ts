import type { BenchConfig } from '../config.js';
import { load } from '../measure.js';
import type { Section } from '../report.js';
import { interleave, ratios, showRatio } from '../rounds.js';
import type { BenchSystem } from '../system.js';

const SETS = 20;

async function inBatches<T>(count: number, make: (i: number) => Promise<T>, width = 8): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < count; i += width) {
    out.push(
      ...(await Promise.all(Array.from({ length: Math.min(width, count - i) }, (_, k) => make(i + k)))),
    );
  }
  return out;
}

/**
 * An organization with 20 policy sets, each with 2 policies and 5 workspaces, created through the
 * API; `url` is its first page of 20 sets, with or without include=workspaces,policies.
 */
export async function createListFixture(b: BenchSystem) {
  const org = `list-${Date.now()}`;
  await b.api('POST', '/organizations', {
    data: { type: 'organizations', attributes: { name: org, email: 'b@example.com' } },
  });
  const workspaces = await inBatches(SETS * 5, (i) =>
    b.api('POST', `/organizations/${org}/workspaces`, {
      data: { type: 'workspaces', attributes: { name: `ws-${i}` } },
    }),
  );
  const policies = await inBatches(SETS * 2, (i) =>
    b.api('POST', `/organizations/${org}/policies`, {
      data: { type: 'policies', attributes: { name: `policy-${i}` } },
    }),
  );
  await inBatches(SETS, (i) =>
    b.api('POST', `/organizations/${org}/policy-sets`, {
      data: {
        type: 'policy-sets',
        attributes: { name: `set-${i}` },
        relationships: {
          workspaces: {
            data: workspaces.slice(i * 5, i * 5 + 5).map((w) => ({ type: 'workspaces', id: w.data.id })),
          },
          policies: {
            data: policies.slice(i * 2, i * 2 + 2).map((p) => ({ type: 'policies', id: p.data.id })),
          },
        },
      },
    }),
  );
  return {
    url: (include: boolean) =>
      `${b.baseUrl}/api/v2/organizations/${org}/policy-sets?page%5Bsize%5D=20${include ? '&include=workspaces,policies' : ''}`,
  };
}

/**
 * A page of 20 policy sets (`createListFixture`) with and without include=workspaces,policies:
 * CPU per request of the system's processes, and per byte served (the included resources make
 * the answer about four times larger, so the second ratio tells whether an included resource
 * costs more or less per byte than a listed one).
 */
export async function listScenario(b: BenchSystem, cfg: BenchConfig) {
  const { url } = await createListFixture(b);
  const bytesOf = async (include: boolean) =>
    (await (await fetch(url(include), { headers: b.auth })).arrayBuffer()).byteLength;
  const bytes = { plain: await bytesOf(false), include: await bytesOf(true) };
  const connections = Math.max(1, cfg.connections >> 2);
  const run = (include: boolean, seconds: number) =>
    load(`${b.mode}: list 20 sets${include ? ' include=workspaces,policies' : ''}`, {
      url: url(include),
      headers: b.auth,
      duration: seconds,
      connections,
      pids: b.pids(),
    });
  await run(false, cfg.warmupSeconds);
  await run(true, cfg.warmupSeconds);
  const rounds = await interleave(cfg.rounds, [() => run(false, cfg.seconds), () => run(true, cfg.seconds)]);
  const cpu = ratios(
    rounds.map(
      ([plain, inc]) => (inc!.cpuMsPerRequest ?? Number.NaN) / (plain!.cpuMsPerRequest ?? Number.NaN),
    ),
  );
  const perByte = ratios(cpu.perRound.map((r) => r / (bytes.include / bytes.plain)));
  const nonOk = rounds.flat().reduce((n, r) => n + r.non2xx + r.errors, 0);
  const section: Section = {
    title: `List of 20 policy sets with and without includes (${b.mode}, ${connections} connections)`,
    rows: rounds.flat(),
    metrics: {
      'CPU per request with includes ÷ plain list': showRatio(cpu),
      'response bytes, plain list / with includes': `${bytes.plain} / ${bytes.include}`,
      'CPU per byte served with includes ÷ plain list': showRatio(perByte),
      'non-2xx and errors': nonOk,
    },
  };
  return { section, cpu, perByte, bytes, nonOk };
}
