import type { Principal } from '@policyhub/grpc-runtime';

/**
 * Short-lived cache of authenticated principals keyed by the token's SHA-256 (never the token).
 * invalidateAll() is called after any change to memberships or organizations so permissions
 * take effect at once; entries otherwise live `ttlMs`.
 */
export interface PrincipalCache {
  get(tokenHash: string): Promise<Principal | undefined>;
  set(tokenHash: string, principal: Principal): Promise<void>;
  invalidateAll(): Promise<void>;
}

export class MemoryPrincipalCache implements PrincipalCache {
  private entries = new Map<string, { principal: Principal; expires: number }>();

  constructor(
    private readonly ttlMs = 5_000,
    private readonly maxEntries = 10_000,
  ) {}

  async get(tokenHash: string): Promise<Principal | undefined> {
    const e = this.entries.get(tokenHash);
    if (!e) return undefined;
    if (e.expires < Date.now()) {
      this.entries.delete(tokenHash);
      return undefined;
    }
    return e.principal;
  }

  async set(tokenHash: string, principal: Principal): Promise<void> {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(tokenHash, { principal, expires: Date.now() + this.ttlMs });
  }

  async invalidateAll(): Promise<void> {
    this.entries.clear();
  }
}
