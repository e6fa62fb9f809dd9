import type { Queryable } from '@policyhub/db';
import { type AuditAct, enqueueAudit, TOPICS } from '@policyhub/events';

/**
 * Records a privileged act of policy-sets in the audit trail: an AuditRecorded event written to
 * the outbox in `tx`, the act's own transaction, which admin-orgs takes into the trail
 * (docs/adr/0051-audit-trail.md). One call per act; never put a secret in `meta`.
 */
export const recordAudit = (tx: Queryable, act: AuditAct): Promise<void> =>
  enqueueAudit(tx, TOPICS.policySetsAuditRecorded, act);
