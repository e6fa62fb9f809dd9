// The enum tables of proto/policyhub/policysets (see ../enum-mapping.ts). One exported mapping per enum,
// named after the enum in lowerCamelCase (e.g. `export const policySetKind = enumMapping(...)`).
import { type EnumWords, enumMapping } from '../enum-mapping.js';
import type { EnforcementLevel__Output } from '../generated/policyhub/policysets/v1/EnforcementLevel.js';
import type { PolicyKind__Output } from '../generated/policyhub/policysets/v1/PolicyKind.js';
import type { PolicySetVersionRole__Output } from '../generated/policyhub/policysets/v1/PolicySetVersionRole.js';
import type { PolicySetVersionSource__Output } from '../generated/policyhub/policysets/v1/PolicySetVersionSource.js';
import type { PolicySetVersionStatus__Output } from '../generated/policyhub/policysets/v1/PolicySetVersionStatus.js';

/** The framework of a policy or a policy set: the spec's canonical names (ADR 0020). */
export const policyKind = enumMapping('PolicyKind', {
  POLICY_KIND_A: 'kind_a',
  POLICY_KIND_B: 'kind_b',
} as const satisfies EnumWords<PolicyKind__Output>);

export const enforcementLevel = enumMapping('EnforcementLevel', {
  ENFORCEMENT_LEVEL_ADVISORY: 'advisory',
  ENFORCEMENT_LEVEL_SOFT_MANDATORY: 'soft-mandatory',
  ENFORCEMENT_LEVEL_HARD_MANDATORY: 'hard-mandatory',
  ENFORCEMENT_LEVEL_MANDATORY: 'mandatory',
} as const satisfies EnumWords<EnforcementLevel__Output>);

export const policySetVersionStatus = enumMapping('PolicySetVersionStatus', {
  POLICY_SET_VERSION_STATUS_PENDING: 'pending',
  POLICY_SET_VERSION_STATUS_READY: 'ready',
  POLICY_SET_VERSION_STATUS_ERRORED: 'errored',
} as const satisfies EnumWords<PolicySetVersionStatus__Output>);

/** A ready version's place in its set's rollout (unset while pending or errored). */
export const policySetVersionRole = enumMapping('PolicySetVersionRole', {
  POLICY_SET_VERSION_ROLE_CURRENT: 'current',
  POLICY_SET_VERSION_ROLE_STAGED: 'staged',
  POLICY_SET_VERSION_ROLE_SUPERSEDED: 'superseded',
} as const satisfies EnumWords<PolicySetVersionRole__Output>);

/** `tfe-api`: upstream's source of versions created through the API (clients check it). */
export const policySetVersionSource = enumMapping('PolicySetVersionSource', {
  POLICY_SET_VERSION_SOURCE_TFE_API: 'tfe-api',
} as const satisfies EnumWords<PolicySetVersionSource__Output>);

export type PolicyKindWord = (typeof policyKind.words)[number];
export type EnforcementLevelWord = (typeof enforcementLevel.words)[number];
export type PolicySetVersionRoleWord = (typeof policySetVersionRole.words)[number];
export type PolicySetVersionStatusWord = (typeof policySetVersionStatus.words)[number];
