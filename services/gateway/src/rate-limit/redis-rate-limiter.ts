import type { Redis } from 'ioredis';
import { KEY_PREFIX } from '../redis/create-redis.js';
import { LuaScript } from '../redis/lua-script.js';
import {
  assertLimit,
  DEFAULT_WINDOW_MS,
  decide,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimiterOptions,
} from './rate-limiter.js';

/**
 * Counts the request and returns {count, ms left in the window}. The first request of a window
 * sets its expiry, atomically with the increment, so a counter can never outlive its window.
 */
const COUNT_REQUEST = new LuaScript(
  `local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if count == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`,
  1,
);

/** Rate limits shared by every gateway replica: one counter per caller and window in Redis. */
export class RedisRateLimiter implements RateLimiter {
  readonly limit: number;
  readonly windowMs: number;
  private readonly prefix: string;

  constructor(
    private readonly redis: Redis,
    options: RateLimiterOptions & { keyPrefix?: string },
  ) {
    assertLimit(options);
    this.limit = options.limit;
    this.windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
    this.prefix = `${options.keyPrefix ?? KEY_PREFIX}rate:`;
  }

  async consume(key: string): Promise<RateLimitDecision> {
    const [count, ttl] = (await COUNT_REQUEST.run(this.redis, [this.prefix + key], [this.windowMs])) as [
      number,
      number,
    ];
    return decide(this.limit, count, ttl);
  }

  /** The Redis connection belongs to the composition root, which closes it. */
  async close(): Promise<void> {}
}
