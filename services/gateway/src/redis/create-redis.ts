import type { Logger } from '@policyhub/telemetry';
import { Redis } from 'ioredis';

/** Every key the gateway writes starts with this, so the Redis can be shared with other tools. */
export const KEY_PREFIX = 'policyhub:gateway:';

/**
 * The gateway's Redis connection (REDIS_URL). Commands fail at once instead of queueing while
 * Redis is unreachable (no offline queue, one retry, 1 s command timeout): callers treat a failure
 * as a cache miss or an unmetered request, so an outage costs an authentication call per request
 * but neither stops nor stalls the gateway.
 */
export function createRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    connectTimeout: 2_000,
    commandTimeout: 1_000,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  const warn = throttled(10_000);
  redis.on('error', (err: Error) => {
    if (warn()) logger.warn({ err: err.message }, 'redis unavailable; caching and rate limiting degraded');
  });
  return redis;
}

/** True at most once per `ms`: keeps a Redis outage from flooding the logs. */
export function throttled(ms: number): () => boolean {
  let last = 0;
  return () => {
    const now = Date.now();
    if (now - last < ms) return false;
    last = now;
    return true;
  };
}
