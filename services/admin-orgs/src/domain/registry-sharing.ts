import { invalidAttribute } from '@policyhub/errors';

/** The private registries an organization can share with others. */
export type Registry = 'modules' | 'providers';

/** How an organization shares its private modules and providers. */
export interface SharingState {
  organization: string;
  globalModuleSharing: boolean;
  globalProviderSharing: boolean;
  /** Sorted organization names; empty while the matching global sharing is on. */
  moduleConsumers: string[];
  providerConsumers: string[];
}

/** A requested change; absent fields keep their value. */
export interface SharingChange {
  globalModuleSharing?: boolean | undefined;
  globalProviderSharing?: boolean | undefined;
  moduleConsumers?: string[] | undefined;
  providerConsumers?: string[] | undefined;
}

/**
 * Applies the spec's two rules per registry: enabling global sharing clears the configured
 * consumers, and setting a consumer list (even an empty one) turns global sharing off. The API
 * never sends both for one registry in one request; if it did, the explicit list would win.
 */
export function applySharingChange(current: SharingState, change: SharingChange): SharingState {
  const next = { ...current };
  if (change.moduleConsumers !== undefined) {
    next.moduleConsumers = normalise(change.moduleConsumers);
    next.globalModuleSharing = false;
  } else if (change.globalModuleSharing !== undefined) {
    next.globalModuleSharing = change.globalModuleSharing;
    if (change.globalModuleSharing) next.moduleConsumers = [];
  }
  if (change.providerConsumers !== undefined) {
    next.providerConsumers = normalise(change.providerConsumers);
    next.globalProviderSharing = false;
  } else if (change.globalProviderSharing !== undefined) {
    next.globalProviderSharing = change.globalProviderSharing;
    if (change.globalProviderSharing) next.providerConsumers = [];
  }
  return next;
}

export function isSameSharing(a: SharingState, b: SharingState): boolean {
  return (
    a.globalModuleSharing === b.globalModuleSharing &&
    a.globalProviderSharing === b.globalProviderSharing &&
    sameList(a.moduleConsumers, b.moduleConsumers) &&
    sameList(a.providerConsumers, b.providerConsumers)
  );
}

/** An organization cannot be a consumer of its own registry. */
export function requireOtherOrganizations(producer: string, consumers: string[], field: string): void {
  if (consumers.includes(producer)) {
    throw invalidAttribute(
      'ADMIN_ORGS_SELF_CONSUMER',
      field,
      `${producer} cannot be a consumer of its own registry`,
    );
  }
}

const normalise = (names: string[]): string[] => [...new Set(names)].sort();

const sameList = (a: string[], b: string[]): boolean =>
  a.length === b.length && a.every((v, i) => v === b[i]);
