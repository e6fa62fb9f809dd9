/** The outcome of counting one request against its caller's budget. */
export interface RateLimitDecision {
  allowed: boolean;
  /** Requests allowed per window (sent as `X-RateLimit-Limit`). */
  limit: number;
  /** Requests left in the current window after this one. */
  remaining: number;
  /** Milliseconds until the current window ends and the budget is whole again. */
  resetMs: number;
}

/**
 * Per-caller request budget at the edge (upstream: 30 requests per second per token, 429 beyond).
 * A window opens at a caller's first request and lasts `windowMs`; every request in it counts.
 * Implementations: in memory (one gateway, embedded mode) and Redis (shared by all replicas).
 */
export interface RateLimiter {
  readonly limit: number;
  readonly windowMs: number;
  /** Counts one request for `key` and says whether it may proceed. */
  consume(key: string): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

export interface RateLimiterOptions {
  /** Requests allowed per key and window; must be at least 1. */
  limit: number;
  /** Window length in milliseconds (default one second). */
  windowMs?: number;
}

export const DEFAULT_WINDOW_MS = 1_000;

export function decide(limit: number, count: number, resetMs: number): RateLimitDecision {
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetMs: Math.max(0, resetMs),
  };
}

export function assertLimit(options: RateLimiterOptions): void {
  if (!Number.isInteger(options.limit) || options.limit < 1)
    throw new Error('rate limit must be a positive integer');
  if (options.windowMs !== undefined && (!Number.isInteger(options.windowMs) || options.windowMs < 1)) {
    throw new Error('rate limit window must be a positive number of milliseconds');
  }
}
