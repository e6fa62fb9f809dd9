/** How long and how much each scenario runs; `quick` is the shape check run by `npm test`. */
export interface BenchConfig {
  quick: boolean;
  /** Interleaved system/baseline rounds (at least 3). */
  rounds: number;
  /** Seconds of each load phase. */
  seconds: number;
  /** Seconds of unrecorded load on every target before the first round. */
  warmupSeconds: number;
  connections: number;
  /** Small uploads per side per round. */
  uploadSamples: number;
  searchOrganizations: number;
  /** Sequential requests per term per round. */
  searchRequests: number;
  /** Sequential plans per side per round of the pipeline scenario. */
  pipelineSamples: number;
  /** Plans PUT at once in a burst of the pipeline scenario. */
  burstRuns: number;
  /** Bursts (each against a burst of the engine alone). */
  burstRounds: number;
  /** EVALUATOR_CONCURRENCY given to the system; undefined: its default (the cores). */
  evaluatorConcurrency: number | undefined;
  /** Policy sets of the large organization of the growth scenario (the small one has 100). */
  growthSets: number;
  /** Sequential requests per request shape per round of the growth scenario. */
  growthRequests: number;
  /** Include the distributed processes (five processes, real gRPC, Kafka). */
  distributed: boolean;
  /**
   * BENCH_SCENARIOS (comma-separated: point, list, search, write, upload, pipeline, growth): run only these; all when
   * unset.
   */
  scenarios: ReadonlySet<string> | undefined;
}

export function benchConfig(env: NodeJS.ProcessEnv = process.env): BenchConfig {
  const quick = env.BENCH_QUICK === '1';
  const num = (name: string, full: number, fast: number) => {
    const value = env[name];
    return value !== undefined && value !== '' ? Number(value) : quick ? fast : full;
  };
  return {
    quick,
    rounds: Math.max(3, num('BENCH_ROUNDS', 5, 3)),
    seconds: num('BENCH_SECONDS', 5, 1),
    warmupSeconds: num('BENCH_WARMUP_SECONDS', 3, 1),
    connections: num('BENCH_CONNECTIONS', 32, 4),
    uploadSamples: num('BENCH_UPLOAD_SAMPLES', 10, 2),
    searchOrganizations: num('BENCH_SEARCH_ORGANIZATIONS', 20_000, 500),
    searchRequests: num('BENCH_SEARCH_REQUESTS', 20, 3),
    pipelineSamples: num('BENCH_PIPELINE_SAMPLES', 8, 2),
    burstRuns: num('BENCH_BURST_RUNS', 50, 6),
    burstRounds: num('BENCH_BURST_ROUNDS', 3, 1),
    evaluatorConcurrency: env.EVALUATOR_CONCURRENCY ? Number(env.EVALUATOR_CONCURRENCY) : undefined,
    growthSets: num('BENCH_GROWTH_SETS', 10_000, 1_000),
    growthRequests: num('BENCH_GROWTH_REQUESTS', 20, 3),
    distributed: env.BENCH_DISTRIBUTED !== '0',
    scenarios: env.BENCH_SCENARIOS ? new Set(env.BENCH_SCENARIOS.split(',').map((s) => s.trim())) : undefined,
  };
}
