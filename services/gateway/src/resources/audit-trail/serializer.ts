import { auditActorType, type commonV1, timestampToIso } from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import type { AuditTrailDocument } from './schema.js';

type AuditTrail = Static<typeof AuditTrailDocument>;
type AuditEvent = AuditTrail['data'][number];

/** The stored `meta` object; anything but an object (never written) reads as empty. */
function metaOf(json: string): Record<string, unknown> {
  const value: unknown = JSON.parse(json || '{}');
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** One record in upstream's audit event shape; the outcome and organization name go in `meta`. */
export function serializeAuditEvent(r: commonV1.AuditRecord__Output): AuditEvent {
  return {
    id: r.id,
    version: '0',
    type: 'Resource',
    timestamp: timestampToIso(r.occurredAt)!,
    auth: {
      accessor_id: r.actorId ?? null,
      description: r.actorDescription,
      type: auditActorType.toWord(r.actorType),
      impersonator_id: null,
      organization_id: r.organizationId ?? null,
    },
    request: { id: null },
    resource: {
      id: r.resourceId,
      type: r.resourceType,
      action: r.action,
      meta: {
        ...metaOf(r.metaJson),
        outcome: 'succeeded',
        ...(r.organization != null ? { organization: r.organization } : {}),
      },
    },
  };
}

export function auditTrailDocument(
  records: commonV1.AuditRecord__Output[],
  page: { currentPage: number; totalPages: number; totalCount: number },
): AuditTrail {
  const { currentPage, totalPages } = page;
  return {
    data: records.map(serializeAuditEvent),
    pagination: {
      current_page: currentPage,
      prev_page: currentPage > 1 ? Math.min(currentPage - 1, totalPages) : null,
      next_page: currentPage < totalPages ? currentPage + 1 : null,
      total_pages: totalPages,
      total_count: page.totalCount,
    },
  };
}
