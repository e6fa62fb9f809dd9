import autocannon from 'autocannon';

export interface LoadResult {
  name: string;
  requests: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  connections?: number;
  /** Seconds; bounded so a run always ends. */
  duration?: number;
  method?: 'GET' | 'POST';
}

/** Drives load on a loopback URL with autocannon and reports throughput and latency percentiles. */
export async function measure(name: string, options: LoadOptions): Promise<LoadResult> {
  if (!/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(options.url)) {
    throw new Error(`refusing to load a non-loopback address: ${options.url}`);
  }
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    connections: options.connections ?? 32,
    duration: Math.min(options.duration ?? 5, 60),
  });
  return {
    name,
    requests: result.requests.total,
    rps: result.requests.average,
    p50: result.latency.p50,
    p95: result.latency.p97_5 ?? result.latency.p99,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

/** Latency percentiles of sequential requests (one connection), for "p50 under N ms" goals. */
export async function sample(
  name: string,
  url: string,
  headers: Record<string, string>,
  count: number,
): Promise<LoadResult> {
  const times: number[] = [];
  let non2xx = 0;
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.status >= 300) non2xx++;
    times.push(performance.now() - t0);
  }
  const total = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  const pct = (p: number) =>
    round(times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))] ?? 0);
  return {
    name,
    requests: count,
    rps: round(count / total),
    p50: pct(50),
    p95: pct(95),
    p99: pct(99),
    errors: 0,
    non2xx,
  };
}

export const round = (n: number) => Math.round(n * 100) / 100;

export function table(rows: LoadResult[]): string {
  const head =
    '| scenario | requests | req/s | p50 ms | p95 ms | p99 ms | non-2xx | errors |\n|---|---:|---:|---:|---:|---:|---:|---:|';
  return [
    head,
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.requests} | ${round(r.rps)} | ${r.p50} | ${r.p95} | ${r.p99} | ${r.non2xx} | ${r.errors} |`,
    ),
  ].join('\n');
}
