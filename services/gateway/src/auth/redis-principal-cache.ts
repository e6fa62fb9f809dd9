import { type Principal, principalFromJson, principalToJson } from '@policyhub/grpc-runtime';
import type { Redis, Result } from 'ioredis';
import { KEY_PREFIX } from '../redis/create-redis.js';
import type { PrincipalCache } from './principal-cache.js';

/**
 * Reads the current epoch and the entry stored under it in one round trip. Returns
 * {epoch, principal JSON or nil}. The entry's key is built from the epoch, so it cannot be
 * declared up front; the shared hash tag keeps it in the epoch's slot on Redis Cluster.
 */
const READ_ENTRY = {
  numberOfKeys: 1,
  lua: `local epoch = redis.call('GET', KEYS[1]) or '0'
return {epoch, redis.call('GET', ARGV[1] .. epoch .. ':' .. ARGV[2])}`,
};

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** READ_ENTRY, defined per connection with defineCommand (EVALSHA, loading it when missing). */
    policyhubReadPrincipal(
      epochKey: string,
      entryPrefix: string,
      tokenHash: string,
    ): Result<[string, string | null], Context>;
  }
}

export interface RedisPrincipalCacheOptions {
  /** How long an authenticated principal is reused (default 5 s). */
  ttlMs?: number;
  keyPrefix?: string;
}

/**
 * The principal cache shared by every gateway replica. Entries are keyed by the token's SHA-256
 * (never the token) and by an epoch: invalidateAll() increments the epoch, so every replica stops
 * reading the old entries at once, and they expire on their own a few seconds later.
 *
 * A principal authenticated while the epoch moved on is stored under the epoch its lookup saw,
 * so it is never read: a membership change cannot be undone by a request that raced it.
 * Redis failures read as misses and skipped writes; the caller then authenticates each time.
 */
export class RedisPrincipalCache implements PrincipalCache {
  private readonly ttlMs: number;
  private readonly epochKey: string;
  private readonly entryPrefix: string;
  /** The epoch each pending miss observed, until set() stores the principal under it. */
  private readonly missEpochs = new Map<string, string>();
  /**
   * The principal last read for each token hash, with the JSON it came from. An unchanged entry
   * hands out the same object, so the internal-auth signature cached for that object
   * (InternalAuth.signUser) is reused instead of signing (JSON + HMAC) on every call.
   */
  private readonly lastRead = new Map<string, { json: string; principal: Principal }>();

  constructor(
    private readonly redis: Redis,
    options: RedisPrincipalCacheOptions = {},
  ) {
    if (!Object.hasOwn(redis, 'policyhubReadPrincipal'))
      redis.defineCommand('policyhubReadPrincipal', READ_ENTRY);
    this.ttlMs = options.ttlMs ?? 5_000;
    // One hash tag, so on Redis Cluster the epoch and the entries live in the same slot.
    const base = `${options.keyPrefix ?? KEY_PREFIX}{principals}:`;
    this.epochKey = `${base}epoch`;
    this.entryPrefix = `${base}entry:`;
  }

  async get(tokenHash: string): Promise<Principal | undefined> {
    let result: [string, string | null];
    try {
      result = await this.redis.policyhubReadPrincipal(this.epochKey, this.entryPrefix, tokenHash);
    } catch {
      return undefined;
    }
    const [epoch, json] = result;
    if (json) {
      const last = this.lastRead.get(tokenHash);
      if (last?.json === json) return last.principal;
      try {
        const principal = principalFromJson(JSON.parse(json));
        if (principal) {
          if (this.lastRead.size >= 10_000) this.lastRead.clear();
          this.lastRead.set(tokenHash, { json, principal });
          return principal;
        }
      } catch {
        // A corrupt entry is a miss; the next set() overwrites it.
      }
    }
    if (this.missEpochs.size >= 10_000) this.missEpochs.clear();
    this.missEpochs.set(tokenHash, epoch);
    return undefined;
  }

  async set(tokenHash: string, principal: Principal, tokenExpiresAt?: number): Promise<void> {
    const epoch = this.missEpochs.get(tokenHash);
    this.missEpochs.delete(tokenHash);
    // Never cached past the token's expiry (an entry that would live less than 1 ms is not written).
    const ttlMs = Math.min(this.ttlMs, Math.floor((tokenExpiresAt ?? Number.POSITIVE_INFINITY) - Date.now()));
    if (ttlMs < 1) return;
    try {
      const key = `${this.entryPrefix}${epoch ?? (await this.redis.get(this.epochKey)) ?? '0'}:${tokenHash}`;
      await this.redis.set(key, JSON.stringify(principalToJson(principal)), 'PX', ttlMs);
    } catch {
      // Not cached this time; authentication still succeeded.
    }
  }

  /**
   * Called after a committed change of access, so it must not fail the response. If Redis cannot
   * take the increment it cannot serve entries either (reads fail as misses), and entries expire
   * within `ttlMs` anyway.
   */
  async invalidateAll(): Promise<void> {
    await this.redis.incr(this.epochKey).catch(() => {});
  }
}
