/**
 * Policy frameworks (the spec's canonical names; the gateway owns any other spelling). These are
 * the words of the contract's enums (@policyhub/contracts src/enums/policysets.ts, ADR 0035;
 * rpc/mappers.ts fails to compile if they differ). Requests carry enums, so an unknown word never
 * reaches this service (the gateway answers it with a 422).
 */
export type Kind = 'kind_a' | 'kind_b';
export const DEFAULT_KIND: Kind = 'kind_a';

export type EnforcementLevel = 'advisory' | 'soft-mandatory' | 'hard-mandatory' | 'mandatory';

/** The levels each kind takes, as upstream: Sentinel's three, OPA's two. */
export const ENFORCEMENT_LEVELS_BY_KIND: Readonly<Record<Kind, readonly EnforcementLevel[]>> = {
  kind_a: ['advisory', 'soft-mandatory', 'hard-mandatory'],
  kind_b: ['advisory', 'mandatory'],
};

/**
 * Used when a client sends no level at all: what the `tfe` provider defaults `enforce_mode` to
 * for each kind.
 */
export const DEFAULT_ENFORCEMENT_LEVEL: Readonly<Record<Kind, EnforcementLevel>> = {
  kind_a: 'soft-mandatory',
  kind_b: 'advisory',
};

export const DEFAULT_POLICY_TOOL_VERSION = 'latest';
