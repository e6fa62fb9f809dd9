import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * A Lua script run atomically on Redis by its SHA-1 (EVALSHA), loading it with EVAL the first time
 * a server has not seen it (after a restart or failover, too).
 */
export class LuaScript {
  private readonly sha: string;

  constructor(
    private readonly source: string,
    private readonly numberOfKeys: number,
  ) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: Redis, keys: string[], args: Array<string | number>): Promise<unknown> {
    if (keys.length !== this.numberOfKeys) throw new Error(`script expects ${this.numberOfKeys} keys`);
    try {
      return await redis.evalsha(this.sha, this.numberOfKeys, ...keys, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return redis.eval(this.source, this.numberOfKeys, ...keys, ...args);
    }
  }
}
