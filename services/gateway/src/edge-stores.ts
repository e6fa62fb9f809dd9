import type { Logger } from '@policyhub/telemetry';
import type { Redis } from 'ioredis';
import { MemoryPrincipalCache, type PrincipalCache } from './auth/principal-cache.js';
import { RedisPrincipalCache } from './auth/redis-principal-cache.js';
import { createRedis } from './redis/create-redis.js';

export interface EdgeStoreOptions {
  /** REDIS_URL: shared stores for every gateway replica; unset keeps them in this process. */
  redisUrl?: string | undefined;
  logger: Logger;
}

export interface EdgeStores {
  principalCache: PrincipalCache;
  /** The connection rate-limit counters share (`RateLimitOptions.redis`); unset: in memory. */
  redis: Redis | undefined;
  close(): Promise<void>;
}

/** The gateway's short-lived state: Redis when configured, else memory. */
export function createEdgeStores(options: EdgeStoreOptions): EdgeStores {
  if (!options.redisUrl) {
    return { principalCache: new MemoryPrincipalCache(), redis: undefined, close: async () => {} };
  }
  const redis = createRedis(options.redisUrl, options.logger);
  return {
    principalCache: new RedisPrincipalCache(redis),
    redis,
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
