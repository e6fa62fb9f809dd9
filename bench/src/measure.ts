import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

/** One load phase: throughput, true latency percentiles and the server's CPU per request. */
export interface LoadResult {
  name: string;
  requests: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  /** Process CPU time (user + system) of the server processes divided by the requests; null if not measured. */
  cpuMsPerRequest: number | null;
  errors: number;
  non2xx: number;
}

export interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  /** GET unless given; `body` is sent as is (set `content-type` in `headers`). */
  method?: 'GET' | 'PATCH' | 'POST' | 'PUT' | 'DELETE';
  body?: string;
  connections?: number;
  /** Seconds; bounded so a run always ends. */
  duration: number;
  /** The server's processes, whose CPU time is charged to the requests. */
  pids?: readonly number[];
}

export const round = (n: number, digits = 2) => {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
};

/** Nearest-rank percentile of an ascending array (p in 0..100). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** User + system CPU time of the processes so far, in milliseconds (Linux /proc/<pid>/stat). */
export function cpuMsOf(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
  }
  return (ticks * 1000) / clockTicks();
}

function assertLoopback(url: string) {
  if (!/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(url)) {
    throw new Error(`refusing to load a non-loopback address: ${url}`);
  }
}

/**
 * Drives closed-loop load on a loopback URL with autocannon. Percentiles come from every
 * response's own latency (autocannon's summary has p97.5, not p95), CPU from /proc.
 */
export async function load(name: string, options: LoadOptions): Promise<LoadResult> {
  assertLoopback(options.url);
  const latencies: number[] = [];
  const pids = options.pids ?? [];
  const cpuBefore = pids.length > 0 ? cpuMsOf(pids) : 0;
  const instance = autocannon({
    url: options.url,
    headers: options.headers ?? {},
    method: options.method ?? 'GET',
    ...(options.body !== undefined ? { body: options.body } : {}),
    connections: options.connections ?? 32,
    duration: Math.min(options.duration, 60),
  });
  instance.on('response', (_client, _status, _bytes, responseTime) => {
    latencies.push(responseTime);
  });
  const result = await instance;
  const cpu = pids.length > 0 ? cpuMsOf(pids) - cpuBefore : Number.NaN;
  latencies.sort((a, b) => a - b);
  const requests = latencies.length;
  return {
    name,
    requests,
    rps: round(requests / (result.duration || options.duration)),
    p50: round(percentile(latencies, 50)),
    p95: round(percentile(latencies, 95)),
    p99: round(percentile(latencies, 99)),
    cpuMsPerRequest: Number.isFinite(cpu) && requests > 0 ? round(cpu / requests, 3) : null,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

/** Latency percentiles of sequential requests (one connection), for "p95 under N ms" goals. */
export async function sequential(
  name: string,
  url: string,
  headers: Record<string, string>,
  count: number,
  pids: readonly number[] = [],
): Promise<LoadResult & { latencies: number[] }> {
  assertLoopback(url);
  const times: number[] = [];
  let non2xx = 0;
  const cpuBefore = pids.length > 0 ? cpuMsOf(pids) : 0;
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.status >= 300) non2xx++;
    times.push(performance.now() - t0);
  }
  const total = (performance.now() - started) / 1000;
  const cpu = pids.length > 0 ? cpuMsOf(pids) - cpuBefore : Number.NaN;
  return { ...summarize(name, times, total, non2xx), cpuMsPerRequest: cpuPer(cpu, count), latencies: times };
}

const cpuPer = (cpu: number, n: number) => (Number.isFinite(cpu) && n > 0 ? round(cpu / n, 3) : null);

/** A LoadResult from raw latencies (ms) of `seconds` of work. */
export function summarize(
  name: string,
  latencies: readonly number[],
  seconds: number,
  non2xx = 0,
): LoadResult {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    name,
    requests: sorted.length,
    rps: round(sorted.length / seconds),
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    cpuMsPerRequest: null,
    errors: 0,
    non2xx,
  };
}

export function table(rows: readonly LoadResult[]): string {
  const head =
    '| scenario | requests | req/s | p50 ms | p95 ms | p99 ms | CPU ms/req | non-2xx | errors |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|';
  return [
    head,
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.requests} | ${r.rps} | ${r.p50} | ${r.p95} | ${r.p99} | ${r.cpuMsPerRequest ?? '–'} | ${r.non2xx} | ${r.errors} |`,
    ),
  ].join('\n');
}
