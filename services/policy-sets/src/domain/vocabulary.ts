/**
 * Policy frameworks (the spec's canonical names; the gateway owns any other spelling). These are
 * the words of the contract's enums (@policyhub/contracts src/enums/policysets.ts, ADR 0035;
 * rpc/mappers.ts fails to compile if they differ). Requests carry enums, so an unknown word never
 * reaches this service (the gateway answers it with a 422).
 */
export type Kind = 'kind_a' | 'kind_b';
export const DEFAULT_KIND: Kind = 'kind_a';

export type EnforcementLevel = 'advisory' | 'soft-mandatory' | 'hard-mandatory';
/** What the `tfe` provider defaults `enforce_mode` to; used when a client sends no level at all. */
export const DEFAULT_ENFORCEMENT_LEVEL: EnforcementLevel = 'soft-mandatory';

export const DEFAULT_POLICY_TOOL_VERSION = 'latest';
