import { toTimestamp } from '@policyhub/contracts';
import { AppError } from '@policyhub/errors';
import type { FastifyReply } from 'fastify';
import { type Api, type Query, type RouteContext, as, queryOf } from '../../route-context.js';
import { query, schema } from '../../schemas/common.js';
import { AuditTrailDocument } from './schema.js';
import { auditTrailDocument } from './serializer.js';

/** Upstream's page size of the trail (and its maximum here). */
const AUDIT_PAGE_SIZE = 1000;

const PARAMETERS = {
  since: 'Only records of acts after this time (ISO 8601, `2026-11-28T10:00:00.000Z`).',
  'page[number]': 'Page number, from 1 (default 1).',
  'page[size]': `Records per page, 1 to ${AUDIT_PAGE_SIZE} (default ${AUDIT_PAGE_SIZE}).`,
};

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

const invalid = (code: 'GATEWAY_INVALID_SINCE' | 'GATEWAY_INVALID_PAGE', parameter: string, detail: string) =>
  new AppError('invalid', code, [{ title: 'invalid parameter', detail, parameter }]);

/** `since` as a time; absent or empty means the whole trail, anything but an ISO 8601 time is a 422. */
function sinceOf(q: Query): Date | undefined {
  const raw = q.since;
  if (raw === undefined || raw === '') return undefined;
  const at = ISO_8601.test(raw) ? new Date(raw) : undefined;
  if (!at || Number.isNaN(at.getTime())) {
    throw invalid(
      'GATEWAY_INVALID_SINCE',
      'since',
      'since must be an ISO 8601 time, e.g. 2026-11-28T10:00:00.000Z',
    );
  }
  return at;
}

function pageOf(q: Query): { number: number; size: number } {
  const read = (name: string, fallback: number, max: number) => {
    const raw = q[name];
    if (raw === undefined || raw === '') return fallback;
    const n = /^\d{1,9}$/.test(raw.trim()) ? Number(raw.trim()) : 0;
    if (n < 1 || n > max) throw invalid('GATEWAY_INVALID_PAGE', name, `${name} must be between 1 and ${max}`);
    return n;
  };
  return {
    number: read('page[number]', 1, 1_000_000),
    size: read('page[size]', AUDIT_PAGE_SIZE, AUDIT_PAGE_SIZE),
  };
}

const send = (reply: FastifyReply, document: unknown) =>
  reply.status(200).type('application/json').send(document);

/**
 * The audit trail (docs/api/audit-trail.md): an organization's for its owners, everything for
 * site admins. admin-orgs answers NOT_FOUND to anyone else, so they get 404.
 */
export function registerAuditTrailRoutes(app: Api, ctx: RouteContext): void {
  const { clients } = ctx;

  app.get(
    '/organization/audit-trail',
    {
      schema: schema('audit-trail', {
        summary: "An organization's audit trail (its owners)",
        produces: ['application/json'],
        querystring: query({
          ...PARAMETERS,
          'filter[organization][name]':
            'The organization whose trail to read (required: a user token does not name one).',
        }),
        response: { 200: AuditTrailDocument },
      }),
    },
    async (request, reply) => {
      const q = queryOf(request);
      const since = sinceOf(q);
      const res = await clients.auditTrail.ListAuditTrail(
        {
          organization: q['filter[organization][name]'] || undefined,
          since: since ? toTimestamp(since) : null,
          page: pageOf(q),
        },
        as(request),
      );
      return send(reply, auditTrailDocument(res.records, res.page!));
    },
  );

  app.get(
    '/admin/audit-trail',
    {
      schema: schema('audit-trail', {
        summary: 'Every organization’s audit trail and acts outside any (site admins)',
        produces: ['application/json'],
        querystring: query({
          ...PARAMETERS,
          'filter[organization][name]': 'Only the records of this organization.',
        }),
        response: { 200: AuditTrailDocument },
      }),
    },
    async (request, reply) => {
      const q = queryOf(request);
      const since = sinceOf(q);
      const res = await clients.auditTrail.ListAdminAuditTrail(
        {
          organization: q['filter[organization][name]'] || undefined,
          since: since ? toTimestamp(since) : null,
          page: pageOf(q),
        },
        as(request),
      );
      return send(reply, auditTrailDocument(res.records, res.page!));
    },
  );
}
