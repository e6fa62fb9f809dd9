import type { LoadResult } from './measure.js';

export interface Section {
  title: string;
  rows: LoadResult[];
  metrics: Record<string, string | number | null>;
}

/** One goal of the bench, measured in this run. `met` is null when the run could not measure it. */
export interface Goal {
  goal: string;
  target: string;
  measured: string;
  met: boolean | null;
}

export interface BenchReport {
  date: string;
  quick: boolean;
  machine: { cpus: number; model: string; memoryGiB: number; node: string; loadAverage: number[] };
  method: string[];
  sections: Section[];
  goals: Goal[];
}

const metricsTable = (metrics: Section['metrics']) =>
  [
    '| metric | value |',
    '|---|---:|',
    ...Object.entries(metrics).map(([k, v]) => `| ${k} | ${v ?? 'n/a'} |`),
  ].join('\n');

export function renderReport(report: BenchReport, table: (rows: LoadResult[]) => string): string {
  const m = report.machine;
  const out = [
    `# PolicyHub benchmark run${report.quick ? ' (BENCH_QUICK: shape check, not a measurement)' : ''}`,
    '',
    `- date: ${report.date}`,
    `- machine: ${m.cpus} × ${m.model}, ${m.memoryGiB} GiB, Node ${m.node}, load average at start ${m.loadAverage.join(' / ')}`,
    ...report.method.map((line) => `- ${line}`),
    '',
    '## Goals',
    '',
    '| goal | target | measured | met? |',
    '|---|---|---|---|',
    ...report.goals.map(
      (g) =>
        `| ${g.goal} | ${g.target} | ${g.measured} | ${g.met === null ? 'not measured' : g.met ? 'yes' : '**no**'} |`,
    ),
    '',
  ];
  for (const s of report.sections) {
    out.push(`## ${s.title}`, '');
    if (s.rows.length > 0) out.push(table(s.rows), '');
    if (Object.keys(s.metrics).length > 0) out.push(metricsTable(s.metrics), '');
  }
  return out.join('\n');
}
