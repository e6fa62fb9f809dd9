/** Policy frameworks (the spec's canonical names; the gateway owns any other spelling). */
export const KINDS = ['kind_a', 'kind_b'] as const;
export type Kind = (typeof KINDS)[number];
export const DEFAULT_KIND: Kind = 'kind_a';

export const ENFORCEMENT_LEVELS = ['advisory', 'soft-mandatory', 'hard-mandatory'] as const;
export type EnforcementLevel = (typeof ENFORCEMENT_LEVELS)[number];
/** What the `tfe` provider defaults `enforce_mode` to; used when a client sends no level at all. */
export const DEFAULT_ENFORCEMENT_LEVEL: EnforcementLevel = 'soft-mandatory';

export const DEFAULT_POLICY_TOOL_VERSION = 'latest';

export const isKind = (v: string): v is Kind => (KINDS as readonly string[]).includes(v);
export const isEnforcementLevel = (v: string): v is EnforcementLevel =>
  (ENFORCEMENT_LEVELS as readonly string[]).includes(v);
