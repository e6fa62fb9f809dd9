import type { Queryable } from '@policyhub/db';
import { type AuditAct, auditFields, newAuditId } from '@policyhub/events';

import { AppError, notFound } from '@policyhub/errors';
import type { Principal } from '@policyhub/permissions';
import { AuditRepository, type AuditRow, type NewAuditRow } from '../db/audit-repository.js';
import { type OrganizationRow, TenancyRepository } from '../db/tenancy-repository.js';
import type { Deps } from '../deps.js';
import { requireOwner, requireSiteAdmin } from '../domain/rules.js';
import { visibleOrganization } from './tenancy-access.js';

/**
 * Records one of admin-orgs' own privileged acts in the trail, in `tx` (the act's transaction):
 * the act and its record commit or roll back together. Other services call `enqueueAudit` of
 * @policyhub/events with their audit topic instead (docs/adr/0051-audit-trail.md).
 */
export async function recordAudit(tx: Queryable, act: AuditAct): Promise<void> {
  await new AuditRepository(tx).insert(auditRow(newAuditId(), null, act));
}

/** A record another service reported (an AuditRecorded event), in the consumer's transaction. */
export async function recordReportedAct(tx: Queryable, row: NewAuditRow): Promise<void> {
  await new AuditRepository(tx).insert(row);
}

/** The organization of a record: its name and immutable id. */
export const organizationOf = (org: OrganizationRow) => ({ name: org.name, id: org.external_id });

/** The trail's row of an act here, or of another service's (its event id and time). */
export function auditRow(id: string, occurredAt: string | null, act: AuditAct): NewAuditRow {
  const f = auditFields(act);
  return {
    id,
    occurred_at: occurredAt,
    organization_id: f.organizationId,
    organization: f.organization,
    actor_type: f.actorType,
    actor_id: f.actorId,
    actor_description: f.actorDescription,
    resource_type: f.resourceType,
    resource_id: f.resourceId,
    action: f.action,
    outcome: f.outcome,
    meta: f.metaJson,
  };
}

/** Pages of the trail hold up to this many records (upstream's default page size). */
export const AUDIT_PAGE_SIZE = 1000;

export interface AuditPageRequest {
  number: number;
  size: number;
}

const windowOf = (page: Partial<AuditPageRequest> | undefined) => {
  const number = Math.max(1, page?.number || 1);
  const size = Math.min(AUDIT_PAGE_SIZE, Math.max(1, page?.size || AUDIT_PAGE_SIZE));
  return { number, size, offset: (number - 1) * size };
};

/** Reading the trail: an organization's owners their organization's, site admins everything. */
export class AuditTrailUseCases {
  private readonly audit: AuditRepository;
  private readonly tenancy: TenancyRepository;

  constructor(deps: Deps) {
    this.audit = new AuditRepository(deps.db);
    this.tenancy = new TenancyRepository(deps.db);
  }

  /**
   * An organization's records. An organization token reads its own organization's (as upstream,
   * where this is the only way in), and names it by itself; a user names it with
   * `filter[organization][name]` and must be one of its owners (or a site admin). Team tokens,
   * owners team's included, are refused as upstream refuses them: NOT_FOUND.
   */
  async listForOrganization(
    principal: Principal | undefined,
    requested: string | undefined,
    since: string | undefined,
    page: Partial<AuditPageRequest> | undefined,
  ) {
    const kind = principal?.kind ?? 'user';
    const own = kind === 'organization' ? [...(principal?.memberships.keys() ?? [])][0] : undefined;
    // Team tokens never read it; an organization token of a disabled organization has no membership.
    if (kind === 'team' || (kind === 'organization' && !own)) throw notFound();
    const organization = requested || own;
    if (!organization) {
      throw new AppError('invalid', 'ADMIN_ORGS_AUDIT_ORGANIZATION_REQUIRED', [
        {
          title: 'invalid parameter',
          detail: 'filter[organization][name] must name the organization whose audit trail to read',
          parameter: 'filter[organization][name]',
        },
      ]);
    }
    if (kind === 'organization' && organization !== own) throw notFound();
    const org = await visibleOrganization(this.tenancy, principal, organization);
    if (kind === 'user') requireOwner(principal, organization);
    return this.page({ organizationId: org.external_id, since }, page);
  }

  /** Every record, or one organization's (by its current name): site admins only. */
  async listForSiteAdmin(
    principal: Principal | undefined,
    organization: string | undefined,
    since: string | undefined,
    page: Partial<AuditPageRequest> | undefined,
  ) {
    requireSiteAdmin(principal);
    let organizationId: string | undefined;
    if (organization) {
      const org = await this.tenancy.getOrganization(organization);
      if (!org) return { records: [] as AuditRow[], page: pageOf(windowOf(page), 0) };
      organizationId = org.external_id;
    }
    return this.page({ organizationId, since }, page);
  }

  private async page(
    filter: { organizationId?: string | undefined; since?: string | undefined },
    page: Partial<AuditPageRequest> | undefined,
  ) {
    const w = windowOf(page);
    const { rows, total } = await this.audit.list({ ...filter, limit: w.size, offset: w.offset });
    return { records: rows, page: pageOf(w, total) };
  }
}

const pageOf = (w: { number: number; size: number }, total: number) => ({
  currentPage: w.number,
  pageSize: w.size,
  totalPages: Math.max(1, Math.ceil(total / w.size)),
  totalCount: total,
});
