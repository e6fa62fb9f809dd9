import { createHash } from 'node:crypto';
import type { Principal } from '@policyhub/grpc-runtime';
import { createLogger } from '@policyhub/telemetry';
import { waitFor } from '@policyhub/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisPrincipalCache } from '../src/auth/redis-principal-cache.js';
import { createRedis } from '../src/redis/create-redis.js';
import { connectRedis, isolatedPrefix, SKIP_REDIS } from './support/redis.js';

const alice: Principal = {
  userId: 'user-alice',
  username: 'alice',
  isSiteAdmin: false,
  memberships: new Map([['acme', ['manage-policies', 'read-runs']]]),
  organizationIds: new Map([['acme', 'org-acme-id']]),
};
const bob: Principal = {
  userId: 'user-bob',
  username: 'bob',
  isSiteAdmin: true,
  memberships: new Map(),
  organizationIds: new Map(),
};
const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

describe.skipIf(SKIP_REDIS)('the Redis principal cache', () => {
  let redis: Redis;
  let replicaRedis: Redis;
  const keys = isolatedPrefix();
  /** Two gateway replicas, each with its own connection, sharing one Redis. */
  let gatewayA: RedisPrincipalCache;
  let gatewayB: RedisPrincipalCache;

  beforeAll(() => {
    redis = connectRedis();
    replicaRedis = connectRedis();
    gatewayA = new RedisPrincipalCache(redis, { keyPrefix: keys.prefix, ttlMs: 60_000 });
    gatewayB = new RedisPrincipalCache(replicaRedis, { keyPrefix: keys.prefix, ttlMs: 60_000 });
  });
  afterAll(async () => {
    await keys.clean(redis);
    await Promise.all([redis.quit(), replicaRedis.quit()]);
  });

  it('returns what another replica stored, and nothing for an unknown token', async () => {
    const token = hashOf('token-alice');
    expect(await gatewayA.get(token)).toBeUndefined();
    await gatewayA.set(token, alice);
    expect(await gatewayB.get(token)).toEqual(alice);
    expect(await gatewayB.get(hashOf('token-nobody'))).toBeUndefined();
  });

  it('hands out the same principal object while the entry is unchanged (InternalAuth reuses its signature)', async () => {
    const token = hashOf('token-reused');
    await gatewayA.set(token, alice);
    const first = await gatewayB.get(token);
    expect(first).toEqual(alice);
    expect(await gatewayB.get(token)).toBe(first);

    await gatewayA.set(token, bob);
    const changed = await gatewayB.get(token);
    expect(changed).toEqual(bob);
    expect(changed).not.toBe(first);
  });

  it('keys entries by the token hash, never by the token', async () => {
    const token = 'ph.secret-token-value';
    await gatewayA.get(hashOf(token));
    await gatewayA.set(hashOf(token), bob);
    const stored = await redis.keys(`${keys.prefix}*`);
    expect(stored.some((k) => k.endsWith(hashOf(token)))).toBe(true);
    expect(stored.some((k) => k.includes(token))).toBe(false);
  });

  it('stores entries only for the TTL', async () => {
    const shortLived = new RedisPrincipalCache(redis, { keyPrefix: keys.prefix, ttlMs: 150 });
    const token = hashOf('token-short');
    await shortLived.get(token);
    await shortLived.set(token, alice);
    expect(await shortLived.get(token)).toEqual(alice);
    const [entryKey] = await redis.keys(`${keys.prefix}*${token}`);
    const ttl = await redis.pttl(entryKey!);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(150);
    await waitFor(async () => (await shortLived.get(token)) === undefined);
  });

  it('never keeps an entry past its token’s expiry', async () => {
    const expiring = hashOf('token-expiring');
    await gatewayA.get(expiring);
    await gatewayA.set(expiring, alice, Date.now() + 5_000);
    const [entryKey] = await redis.keys(`${keys.prefix}*${expiring}`);
    const ttl = await redis.pttl(entryKey!);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5_000);

    const expired = hashOf('token-expired');
    await gatewayA.get(expired);
    await gatewayA.set(expired, alice, Date.now() - 1);
    expect(await gatewayB.get(expired)).toBeUndefined();
    expect(await redis.keys(`${keys.prefix}*${expired}`)).toEqual([]);
  });

  it('invalidateAll() on one replica drops every entry for all replicas at once', async () => {
    const a = hashOf('token-a');
    const b = hashOf('token-b');
    await gatewayA.set(a, alice);
    await gatewayB.set(b, bob);
    expect(await gatewayB.get(a)).toEqual(alice);
    expect(await gatewayA.get(b)).toEqual(bob);

    await gatewayA.invalidateAll();

    expect(await gatewayA.get(a)).toBeUndefined();
    expect(await gatewayB.get(a)).toBeUndefined();
    expect(await gatewayB.get(b)).toBeUndefined();
    await gatewayB.set(b, bob);
    expect(await gatewayA.get(b)).toEqual(bob);
  });

  it('never serves a principal authenticated before an invalidation that raced it', async () => {
    const token = hashOf('token-racing');
    expect(await gatewayA.get(token)).toBeUndefined(); // miss: the gateway goes to authenticate…
    await gatewayB.invalidateAll(); // …while a membership change commits on another replica…
    await gatewayA.set(token, alice); // …and the stale principal arrives afterwards.
    expect(await gatewayA.get(token)).toBeUndefined();
    expect(await gatewayB.get(token)).toBeUndefined();
  });

  it('treats an unreachable Redis as a cache that never hits', async () => {
    // The production connection settings, pointed at a port nothing listens on.
    const unreachable = createRedis('redis://127.0.0.1:1', createLogger('gateway-test', 'silent'));
    try {
      const cache = new RedisPrincipalCache(unreachable, { keyPrefix: keys.prefix });
      const token = hashOf('token-offline');
      expect(await cache.get(token)).toBeUndefined();
      await expect(cache.set(token, alice)).resolves.toBeUndefined();
      await expect(cache.invalidateAll()).resolves.toBeUndefined();
    } finally {
      unreachable.disconnect();
    }
  });
});
