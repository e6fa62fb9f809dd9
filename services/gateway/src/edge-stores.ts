import type { Logger } from '@policyhub/telemetry';
import { MemoryPrincipalCache, type PrincipalCache } from './auth/principal-cache.js';
import { RedisPrincipalCache } from './auth/redis-principal-cache.js';
import { MemoryRateLimiter } from './rate-limit/memory-rate-limiter.js';
import type { RateLimiter } from './rate-limit/rate-limiter.js';
import { RedisRateLimiter } from './rate-limit/redis-rate-limiter.js';
import { createRedis } from './redis/create-redis.js';

export interface EdgeStoreOptions {
  /** REDIS_URL: shared stores for every gateway replica; unset keeps them in this process. */
  redisUrl?: string | undefined;
  /** RATE_LIMIT_PER_SECOND per token (or client address); 0 turns rate limiting off. */
  rateLimitPerSecond: number;
  logger: Logger;
}

export interface EdgeStores {
  principalCache: PrincipalCache;
  rateLimiter: RateLimiter | undefined;
  close(): Promise<void>;
}

/** The gateway's short-lived state: Redis when configured, else memory (DESIGN §3). */
export function createEdgeStores(options: EdgeStoreOptions): EdgeStores {
  const limit = options.rateLimitPerSecond;
  if (!options.redisUrl) {
    return {
      principalCache: new MemoryPrincipalCache(),
      rateLimiter: limit > 0 ? new MemoryRateLimiter({ limit }) : undefined,
      close: async () => {},
    };
  }
  const redis = createRedis(options.redisUrl, options.logger);
  return {
    principalCache: new RedisPrincipalCache(redis),
    rateLimiter: limit > 0 ? new RedisRateLimiter(redis, { limit }) : undefined,
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
