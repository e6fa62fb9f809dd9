import type { Principal } from '@policyhub/grpc-runtime';
import { describe, expect, it } from 'vitest';
import { MemoryPrincipalCache } from '../src/auth/principal-cache.js';

const alice: Principal = {
  userId: 'user-alice',
  username: 'alice',
  isSiteAdmin: false,
  memberships: new Map([['acme', ['read-runs']]]),
  organizationIds: new Map([['acme', 'org-acme-id']]),
};

describe('the memory principal cache', () => {
  it('serves an entry until its token expires, never after', async () => {
    const cache = new MemoryPrincipalCache(60_000);
    await cache.set('live', alice, Date.now() + 60_000);
    expect(await cache.get('live')).toBe(alice);
    await cache.set('expired', alice, Date.now() - 1);
    expect(await cache.get('expired')).toBeUndefined();
    await cache.set('forever', alice);
    expect(await cache.get('forever')).toBe(alice);
  });
});
