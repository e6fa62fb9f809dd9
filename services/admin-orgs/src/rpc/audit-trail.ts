import {
  type adminorgsV1,
  auditActorType,
  auditOutcome,
  type commonV1,
  fromTimestamp,
  toTimestamp,
} from '@policyhub/contracts';
import type { Handlers } from '@policyhub/grpc-runtime';
import type { AuditRow } from '../db/audit-repository.js';
import type { AuditTrailUseCases } from '../use-cases/audit-trail.js';

const toAuditRecord = (r: AuditRow): commonV1.AuditRecord => ({
  id: r.id,
  occurredAt: toTimestamp(r.occurred_at),
  ...(r.organization_id !== null ? { organizationId: r.organization_id } : {}),
  ...(r.organization !== null ? { organization: r.organization } : {}),
  actorType: auditActorType.fromKnownWord(r.actor_type),
  ...(r.actor_id !== null ? { actorId: r.actor_id } : {}),
  actorDescription: r.actor_description,
  resourceType: r.resource_type,
  resourceId: r.resource_id,
  action: r.action,
  outcome: auditOutcome.fromKnownWord(r.outcome),
  metaJson: r.meta,
});

const sinceOf = (since: adminorgsV1.ListAuditTrailRequest__Output['since']) =>
  fromTimestamp(since)?.toISOString();

export function auditTrailHandlers(trail: AuditTrailUseCases): Handlers<adminorgsV1.AuditTrailHandlers> {
  return {
    async ListAuditTrail(req, { principal }) {
      const res = await trail.listForOrganization(
        principal,
        req.organization ?? undefined,
        sinceOf(req.since),
        req.page ?? undefined,
      );
      return { records: res.records.map(toAuditRecord), page: res.page };
    },

    async ListAdminAuditTrail(req, { principal }) {
      const res = await trail.listForSiteAdmin(
        principal,
        req.organization ?? undefined,
        sinceOf(req.since),
        req.page ?? undefined,
      );
      return { records: res.records.map(toAuditRecord), page: res.page };
    },
  };
}
