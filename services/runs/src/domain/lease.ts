import { invalidAttribute } from '@policyhub/errors';

export const DEFAULT_LEASE_SECONDS = 300;
export const MAX_LEASE_SECONDS = 3_600;
/** A check whose leases expired this many times is errored instead of handed out again. */
export const MAX_CLAIMS = 5;

/** Unset means the default; otherwise 1..3600 seconds. */
export function leaseSeconds(requested: number | undefined): number {
  if (requested === undefined) return DEFAULT_LEASE_SECONDS;
  if (!Number.isInteger(requested) || requested < 1 || requested > MAX_LEASE_SECONDS) {
    throw invalidAttribute(
      'RUNS_INVALID_LEASE',
      '/lease_seconds',
      `lease_seconds must be between 1 and ${MAX_LEASE_SECONDS}`,
    );
  }
  return requested;
}
