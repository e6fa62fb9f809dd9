import { describe, expect, it } from 'vitest';
import { benchConfig } from '../src/config.js';
import { table } from '../src/measure.js';
import { renderReport } from '../src/report.js';
import { runBench } from '../src/run.js';

/**
 * BENCH_QUICK=1 runs every scenario for about a second against `npm start` and the distributed
 * processes, so the harness cannot rot unnoticed. It checks the report's shape, never a speed.
 */
describe('bench (BENCH_QUICK=1)', () => {
  it('runs every scenario against both modes and reports every goal', { timeout: 600_000 }, async () => {
    const report = await runBench(benchConfig({ BENCH_QUICK: '1' }));

    expect(report.quick).toBe(true);
    expect(report.machine.cpus).toBeGreaterThan(0);
    expect(report.sections.map((s) => s.title)).toEqual([
      expect.stringMatching(/^Point read, `npm start`/),
      expect.stringMatching(/^List of 20 policy sets/),
      expect.stringMatching(/^Admin organization search/),
      expect.stringMatching(/^Write \(PATCH \/workspaces\/:id\)/),
      expect.stringMatching(/^Upload .*embedded/),
      expect.stringMatching(/^Pipeline: plan in/),
      expect.stringMatching(/^Growth: policy sets/),
      expect.stringMatching(/^Point read, distributed/),
      expect.stringMatching(/^Upload .*distributed, events over Kafka/),
    ]);
    for (const section of report.sections) {
      for (const row of section.rows) {
        expect(row.requests, `${section.title}: ${row.name}`).toBeGreaterThan(0);
        expect(row.non2xx + row.errors, `${section.title}: ${row.name}`).toBe(0);
        expect(row.p50).toBeLessThanOrEqual(row.p95);
        expect(row.p95).toBeLessThanOrEqual(row.p99);
      }
    }
    // Point reads and lists: at least 3 interleaved rounds of each side, CPU measured.
    const point = report.sections[0]!;
    expect(point.rows.filter((r) => r.name.startsWith('baseline')).length).toBeGreaterThanOrEqual(3);
    expect(point.rows.filter((r) => r.name.startsWith('embedded')).length).toBeGreaterThanOrEqual(3);
    for (const row of point.rows) expect(row.cpuMsPerRequest).toBeGreaterThan(0);
    // The search covers matching and zero-match terms.
    const search = report.sections[2]!.rows.map((r) => r.name);
    expect(search.some((n) => n.includes('(matches)'))).toBe(true);
    expect(search.some((n) => n.includes('(zero-match)'))).toBe(true);

    expect(report.goals).toHaveLength(16);
    for (const g of report.goals) {
      expect(g.measured, g.goal).not.toBe('not run');
      // The one goal this bench does not measure says so.
      if (g.goal.includes('100,000 policy checks')) expect(g.met, g.goal).toBeNull();
      else expect(typeof g.met, g.goal).toBe('boolean');
    }
    const markdown = renderReport(report, table);
    expect(markdown).toContain('## Goals');
    expect(markdown).toContain('BENCH_QUICK');
  });
});
