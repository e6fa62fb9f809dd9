import { mkdirSync, writeFileSync } from 'node:fs';
import { benchConfig } from './config.js';
import { table } from './measure.js';
import { renderReport } from './report.js';
import { runBench } from './run.js';

/**
 * `npm run bench`: every scenario of the read-path and pipeline goals, bounded in time, loopback only. Prints the report
 * and writes bench/results/latest.md and latest.json. BENCH_QUICK=1 is the short shape check.
 */
const report = await runBench(benchConfig(), (line) => console.error(line));
const markdown = renderReport(report, table);
console.log(markdown);
const dir = new URL('../results/', import.meta.url);
mkdirSync(dir, { recursive: true });
writeFileSync(new URL('latest.md', dir), markdown);
writeFileSync(new URL('latest.json', dir), `${JSON.stringify(report, null, 2)}\n`);
console.error('written to bench/results/latest.md and latest.json');
process.exit(0);
