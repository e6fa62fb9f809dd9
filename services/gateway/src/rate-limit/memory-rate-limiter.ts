import {
  assertLimit,
  DEFAULT_WINDOW_MS,
  decide,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimiterOptions,
} from './rate-limiter.js';

interface Window {
  count: number;
  endsAt: number;
}

/**
 * Rate limits in this process's memory: right for a single gateway (embedded mode). Expired
 * windows are swept at most once per window length, so memory stays bounded by active callers.
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly limit: number;
  readonly windowMs: number;
  private readonly windows = new Map<string, Window>();
  private nextSweepAt = 0;
  private readonly now: () => number;

  constructor(options: RateLimiterOptions & { now?: () => number }) {
    assertLimit(options);
    this.limit = options.limit;
    this.windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
    this.now = options.now ?? Date.now;
  }

  async consume(key: string): Promise<RateLimitDecision> {
    const now = this.now();
    this.sweep(now);
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      window = { count: 0, endsAt: now + this.windowMs };
      this.windows.set(key, window);
    }
    window.count += 1;
    return decide(this.limit, window.count, window.endsAt - now);
  }

  private sweep(now: number): void {
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + this.windowMs;
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
  }

  async close(): Promise<void> {
    this.windows.clear();
  }
}
