export { type BenchConfig, benchConfig } from './config.js';
export { table } from './measure.js';
export { type BenchReport, renderReport } from './report.js';
export { runBench } from './run.js';
