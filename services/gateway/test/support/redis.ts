import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/** The machine's Redis (CI sets REDIS_URL); Redis tests are skipped, and say so, without it. */
export const REDIS_URL = process.env.REDIS_URL;
export const SKIP_REDIS = !REDIS_URL;
if (SKIP_REDIS)
  console.warn('REDIS_URL is not set: skipping the Redis tests (CI sets it to the machine Redis)');

/** A key prefix no other test run uses, and a cleanup that deletes everything under it. */
export function isolatedPrefix(): { prefix: string; clean(redis: Redis): Promise<void> } {
  const prefix = `policyhub:test:${randomBytes(6).toString('hex')}:`;
  return {
    prefix,
    async clean(redis) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        if (keys.length > 0) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    },
  };
}

export const connectRedis = (): Redis => new Redis(REDIS_URL!, { maxRetriesPerRequest: 1 });
