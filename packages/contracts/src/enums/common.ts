// The enum tables of proto/policyhub/common (see ../enum-mapping.ts). One exported mapping per enum,
// named after the enum in lowerCamelCase.
import { type EnumWords, enumMapping } from '../enum-mapping.js';
import type {
  AuditActorType__Output,
  AuditOutcome__Output,
  DeclaredEnforcementLevel__Output,
} from '../generated/policyhub/common/v1/index.js';

/** An audit record's `auth.type`, in upstream's words. */
export const auditActorType = enumMapping('AuditActorType', {
  AUDIT_ACTOR_TYPE_CLIENT: 'Client',
  AUDIT_ACTOR_TYPE_SYSTEM: 'System',
} as const satisfies EnumWords<AuditActorType__Output>);

/** What came of an audited act. */
export const auditOutcome = enumMapping('AuditOutcome', {
  AUDIT_OUTCOME_SUCCEEDED: 'succeeded',
} as const satisfies EnumWords<AuditOutcome__Output>);

/** A policy block's enforcement level in an archive's configuration file (common.v1.ArchiveDeclaration). */
export const declaredEnforcementLevel = enumMapping('DeclaredEnforcementLevel', {
  DECLARED_ENFORCEMENT_LEVEL_ADVISORY: 'advisory',
  DECLARED_ENFORCEMENT_LEVEL_SOFT_MANDATORY: 'soft-mandatory',
  DECLARED_ENFORCEMENT_LEVEL_HARD_MANDATORY: 'hard-mandatory',
  DECLARED_ENFORCEMENT_LEVEL_MANDATORY: 'mandatory',
} as const satisfies EnumWords<DeclaredEnforcementLevel__Output>);
