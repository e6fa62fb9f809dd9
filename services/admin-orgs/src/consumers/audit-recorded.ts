import { auditActorType, auditOutcome, type commonV1, timestampToIso } from '@policyhub/contracts';
import { type ConsumedEvent, startConsumer, type Subscription, TOPICS } from '@policyhub/events';
import type { ServiceDeps } from '@policyhub/service-kit';
import type { NewAuditRow } from '../db/audit-repository.js';
import { recordReportedAct } from '../use-cases/audit-trail.js';

export const AUDIT_RECORDED_CONSUMER = 'admin-orgs.audit-recorded';

/** The trail's row of a reported act: the event id is the record id, so a redelivery adds nothing. */
function rowOf(event: ConsumedEvent<commonV1.AuditRecorded__Output>): NewAuditRow {
  const r = event.payload.record;
  if (!r) throw new Error('AuditRecorded without a record');
  return {
    id: event.eventId,
    occurred_at: timestampToIso(event.payload.occurredAt),
    organization_id: r.organizationId ?? null,
    organization: r.organization ?? null,
    actor_type: auditActorType.toWord(r.actorType),
    actor_id: r.actorId ?? null,
    actor_description: r.actorDescription,
    resource_type: r.resourceType,
    resource_id: r.resourceId,
    action: r.action,
    outcome: auditOutcome.toWord(r.outcome),
    meta: r.metaJson || '{}',
  };
}

/**
 * Takes the privileged acts other services wrote to their outbox into the audit trail, each once
 * (startConsumer records the event id in processed_events in the same transaction).
 */
export function startAuditRecordedConsumer({ db, transport, logger }: ServiceDeps): Promise<Subscription> {
  const handle = (
    event: ConsumedEvent<commonV1.AuditRecorded__Output>,
    tx: Parameters<typeof recordReportedAct>[0],
  ) => recordReportedAct(tx, rowOf(event));
  return startConsumer({
    name: AUDIT_RECORDED_CONSUMER,
    db,
    transport,
    logger,
    handlers: [
      { topic: TOPICS.policySetsAuditRecorded, handle },
      { topic: TOPICS.runsAuditRecorded, handle },
    ],
  });
}
