import type { Principal } from '@policyhub/grpc-runtime';

/**
 * Short-lived cache of authenticated principals keyed by the token's SHA-256 (never the token).
 * invalidateAll() is called after any change to memberships or organizations so permissions
 * take effect at once; entries otherwise live `ttlMs`, and never past their token's expiry.
 */
export interface PrincipalCache {
  get(tokenHash: string): Promise<Principal | undefined>;
  /** `tokenExpiresAt` (epoch ms): the entry is not served from then on. */
  set(tokenHash: string, principal: Principal, tokenExpiresAt?: number): Promise<void>;
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
    if (e.expires <= Date.now()) {
      this.entries.delete(tokenHash);
      return undefined;
    }
    return e.principal;
  }

  async set(tokenHash: string, principal: Principal, tokenExpiresAt?: number): Promise<void> {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    const expires = Math.min(Date.now() + this.ttlMs, tokenExpiresAt ?? Number.POSITIVE_INFINITY);
    this.entries.set(tokenHash, { principal, expires });
  }

  async invalidateAll(): Promise<void> {
    this.entries.clear();
  }
}
