// The subset of autocannon's API the bench uses (the package ships no types).
declare module 'autocannon' {
  interface Histogram {
    average: number;
    total: number;
    p50: number;
    p97_5: number;
    p99: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    errors: number;
    non2xx: number;
  }
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    connections?: number;
    duration?: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
