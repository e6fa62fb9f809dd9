import { isUniqueViolation, pageInfo, pageWindow } from '@policyhub/db';
import { auditActorOf } from '@policyhub/events';
import { invalidAttribute, newId, notFound } from '@policyhub/errors';
import { PERMISSIONS, type Principal } from '@policyhub/permissions';
import { type OrganizationRow, TenancyRepository } from '../db/tenancy-repository.js';
import type { Deps } from '../deps.js';
import { OWNER, requireEmail, requireName, requireOwner, requirePrincipal } from '../domain/rules.js';
import { organizationOf, recordAudit } from './audit-trail.js';
import { deleteOrganization } from './organization-deletion.js';
import type { PageRequest } from './page.js';
import { nameTaken, visibleOrganization } from './tenancy-access.js';

const DEFAULT_PROJECT = 'Default Project';

/** Organizations as their members see them; a new one gets an owners team and a default project. */
export class OrganizationUseCases {
  private readonly tenancy: TenancyRepository;

  constructor(private readonly deps: Deps) {
    this.tenancy = new TenancyRepository(deps.db);
  }

  /** A new organization owned by the caller. */
  async create(principal: Principal | undefined, name: string, email: string): Promise<OrganizationRow> {
    const caller = requirePrincipal(principal);
    // Only a person creates organizations (they become its owner); team and organization tokens
    // may not (upstream's rule).
    if ((caller.kind ?? 'user') !== 'user') throw notFound();
    requireName(name, 'name', 'ADMIN_ORGS_INVALID_ORGANIZATION_NAME', undefined, 40);
    requireEmail(email, 'email', 'ADMIN_ORGS_INVALID_EMAIL');
    try {
      await this.deps.db.transaction(async (tx) => {
        const r = new TenancyRepository(tx);
        const id = newId('org');
        await r.insertOrganization(name, id, email);
        await recordAudit(tx, {
          organization: { name, id },
          actor: auditActorOf(caller),
          resource: { type: 'organization', id, action: 'create' },
          meta: { name, email },
        });
        const ownersId = newId('team');
        await r.insertTeam(ownersId, name, OWNER, [...PERMISSIONS], 'organization');
        await r.addMembers(ownersId, [caller.userId]);
        await r.insertProject({
          id: newId('prj'),
          organization: name,
          name: DEFAULT_PROJECT,
          description: '',
          is_default: true,
        });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken('organization');
      throw err;
    }
    return (await this.tenancy.getOrganization(name))!;
  }

  /**
   * The organization as the caller may see it. Internal callers (no principal; storage refusing
   * uploads) see every organization, disabled ones too.
   */
  async get(principal: Principal | undefined, name: string): Promise<OrganizationRow> {
    if (!principal) {
      const org = await this.tenancy.getOrganization(name);
      if (!org) throw notFound();
      return org;
    }
    return visibleOrganization(this.tenancy, principal, name);
  }

  /** The caller's organizations (site admins: all of them). */
  async list(principal: Principal | undefined, page: PageRequest) {
    const caller = requirePrincipal(principal);
    const w = pageWindow(page);
    const { rows, total } = await this.tenancy.listOrganizations(
      caller.isSiteAdmin ? null : caller.userId,
      w.size,
      w.offset,
    );
    return { organizations: rows, page: pageInfo(w, total) };
  }

  async update(
    principal: Principal | undefined,
    name: string,
    change: { newName?: string | undefined; email?: string | undefined },
  ): Promise<OrganizationRow> {
    const org = await visibleOrganization(this.tenancy, principal, name);
    requireOwner(principal, name);
    if (change.newName !== undefined && change.newName !== name) {
      // Other services key their data (policy sets, runs, archives) by organization name and
      // there is no rename event: refuse rather than orphan that data.
      throw invalidAttribute(
        'ADMIN_ORGS_RENAME_UNSUPPORTED',
        'name',
        'Renaming an organization is not supported',
      );
    }
    if (change.email !== undefined) requireEmail(change.email, 'email', 'ADMIN_ORGS_INVALID_EMAIL');
    try {
      await this.deps.db.transaction(async (tx) => {
        await new TenancyRepository(tx).updateOrganization(name, {
          name: change.newName,
          email: change.email,
        });
        await recordAudit(tx, {
          organization: organizationOf(org),
          actor: auditActorOf(principal),
          resource: { type: 'organization', id: org.external_id, action: 'update' },
          meta: {
            changed: Object.keys(change).filter((k) => change[k as keyof typeof change] !== undefined),
          },
        });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken('organization');
      throw err;
    }
    return (await this.tenancy.getOrganization(change.newName ?? name))!;
  }

  async delete(principal: Principal | undefined, name: string): Promise<void> {
    await visibleOrganization(this.tenancy, principal, name);
    requireOwner(principal, name);
    await deleteOrganization(this.deps, name, auditActorOf(principal));
  }
}
