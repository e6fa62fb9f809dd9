import { describe, expect, it } from 'vitest';
import {
  applySharingChange,
  isSameSharing,
  requireOtherOrganizations,
  type SharingState,
} from './registry-sharing.js';

const state = (over: Partial<SharingState> = {}): SharingState => ({
  organization: 'acme',
  globalModuleSharing: false,
  globalProviderSharing: false,
  moduleConsumers: [],
  providerConsumers: [],
  ...over,
});

describe('applySharingChange', () => {
  it('setting a consumer list replaces it (sorted, without duplicates) and turns global sharing off', () => {
    const next = applySharingChange(state({ globalModuleSharing: true, moduleConsumers: [] }), {
      moduleConsumers: ['zeta', 'beta', 'zeta'],
    });
    expect(next).toMatchObject({ globalModuleSharing: false, moduleConsumers: ['beta', 'zeta'] });
  });

  it('enabling global sharing clears that registry only', () => {
    const next = applySharingChange(state({ moduleConsumers: ['b'], providerConsumers: ['c'] }), {
      globalProviderSharing: true,
    });
    expect(next).toMatchObject({
      globalProviderSharing: true,
      providerConsumers: [],
      moduleConsumers: ['b'],
    });
  });

  it('disabling global sharing keeps the (empty) consumer list', () => {
    const next = applySharingChange(state({ globalModuleSharing: true }), { globalModuleSharing: false });
    expect(next).toMatchObject({ globalModuleSharing: false, moduleConsumers: [] });
  });

  it('absent fields keep their values', () => {
    const current = state({ globalProviderSharing: true, moduleConsumers: ['b'] });
    expect(isSameSharing(applySharingChange(current, {}), current)).toBe(true);
  });
});

describe('isSameSharing', () => {
  it('compares flags and lists', () => {
    expect(isSameSharing(state({ moduleConsumers: ['b'] }), state({ moduleConsumers: ['b'] }))).toBe(true);
    expect(isSameSharing(state({ moduleConsumers: ['b'] }), state({ moduleConsumers: ['c'] }))).toBe(false);
    expect(isSameSharing(state(), state({ globalModuleSharing: true }))).toBe(false);
  });
});

describe('requireOtherOrganizations', () => {
  it('rejects an organization consuming its own registry', () => {
    expect(() => requireOtherOrganizations('acme', ['acme'], '/data')).toThrow(
      expect.objectContaining({ code: 'ADMIN_ORGS_SELF_CONSUMER' }),
    );
    expect(() => requireOtherOrganizations('acme', ['other'], '/data')).not.toThrow();
  });
});
