import { Type } from '@sinclair/typebox';
import { closed, nullable, Timestamp } from '../../schemas/resources.js';

/**
 * The audit trail's wire shape: upstream's audit trails API, which is not JSON:API — a `data`
 * array of plain objects with snake_case members and a `pagination` object
 * (docs/api/audit-trail.md). Exact, like every response schema (ADR 0031).
 */
const AUDIT_EVENT = closed({
  id: Type.String({ description: 'The record id (UUID).' }),
  version: Type.String({ description: 'Schema version of the record: `0`.' }),
  type: Type.Literal('Resource'),
  timestamp: Timestamp,
  auth: closed({
    accessor_id: nullable(Type.String({ description: 'The acting user (`user-…`); null for the system.' })),
    description: Type.String({ description: 'The acting user name, or `system`.' }),
    type: Type.Union([Type.Literal('Client'), Type.Literal('System')]),
    impersonator_id: Type.Null(),
    organization_id: nullable(Type.String({ description: 'The organization acted in (`org-…`).' })),
  }),
  request: closed({ id: Type.Null() }),
  resource: closed({
    id: Type.String(),
    type: Type.String({ description: 'e.g. `policy_set`, `team`, `authentication_token`.' }),
    action: Type.String({ description: 'e.g. `create`, `update`, `destroy`, `override`.' }),
    meta: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'Facts about the act: `outcome`, `organization` (its name then), names, changed settings.',
      },
    ),
  }),
});

const pageNumber = Type.Integer({ minimum: 1 });

export const AuditTrailDocument = closed({
  data: Type.Array(AUDIT_EVENT),
  pagination: closed({
    current_page: pageNumber,
    prev_page: nullable(pageNumber),
    next_page: nullable(pageNumber),
    total_pages: pageNumber,
    total_count: Type.Integer({ minimum: 0 }),
  }),
});
