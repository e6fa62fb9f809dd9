import { pageInfo, pageWindow, type Queryable } from '@policyhub/db';
import { invalidAttribute, notFound, ValidationErrors } from '@policyhub/errors';
import { type AuditMetaValue, auditActorOf } from '@policyhub/events';
import type { Principal } from '@policyhub/permissions';
import {
  AdminOrganizationRepository,
  type OrganizationSearch,
  type OrganizationSettings,
  TRIGRAM_SEARCH_PLAN,
} from '../db/admin-organization-repository.js';
import { type OrganizationRow, TenancyRepository } from '../db/tenancy-repository.js';
import type { Deps } from '../deps.js';
import { requireDuration } from '../domain/durations.js';
import {
  applySharingChange,
  isSameSharing,
  type Registry,
  requireOtherOrganizations,
  type SharingChange,
  type SharingState,
} from '../domain/registry-sharing.js';
import { requireSiteAdmin } from '../domain/rules.js';
import { enqueueSharingChanged } from '../events/sharing-changed.js';
import { organizationOf, recordAudit } from './audit-trail.js';
import { deleteOrganization } from './organization-deletion.js';
import type { PageRequest } from './page.js';

/** The request field each consumer list came from (domain terms), for 422s. */
type ConsumerPointers = Partial<Record<Registry, string>>;

/** The settings an admin changes: undefined leaves one as it is, null clears it (where allowed). */
export type OrganizationSettingsChange = OrganizationSettings;

const MAX_WORKSPACE_LIMIT = 2_147_483_647;

/**
 * The site-admin organization API. Everything first requires a site admin (anyone else gets
 * NOT_FOUND, indistinguishable from a missing organization), then checks that the organization
 * exists before looking at the request's values.
 */
export class AdminOrganizationUseCases {
  private readonly admin: AdminOrganizationRepository;
  private readonly tenancy: TenancyRepository;

  constructor(private readonly deps: Deps) {
    this.admin = new AdminOrganizationRepository(deps.db);
    this.tenancy = new TenancyRepository(deps.db);
  }

  /** Organizations matching `search`, with the counts of all matches by status. */
  async list(principal: Principal | undefined, search: OrganizationSearch, page: PageRequest) {
    requireSiteAdmin(principal);
    const w = pageWindow(page);
    const isTextSearch = search.query !== '' || search.name !== '' || search.email !== '';
    const { rows, ...counts } = isTextSearch
      ? await this.deps.db.transaction(
          (tx) => new AdminOrganizationRepository(tx).searchWithCounts(search, w.size, w.offset),
          { setLocal: TRIGRAM_SEARCH_PLAN },
        )
      : await Promise.all([
          this.admin.search(search, w.size, w.offset),
          this.admin.countMatching(search),
        ]).then(([found, c]) => ({ rows: found, ...c }));
    return {
      organizations: rows,
      page: pageInfo(w, counts.total),
      statusCounts: {
        total: counts.total,
        active: counts.total - counts.disabled,
        disabled: counts.disabled,
      },
    };
  }

  async get(principal: Principal | undefined, name: string): Promise<OrganizationRow> {
    requireSiteAdmin(principal);
    return this.existing(name);
  }

  /** Stores the settings given; a change of global sharing is announced (org-sharing-changed). */
  async update(
    principal: Principal | undefined,
    name: string,
    change: OrganizationSettingsChange,
  ): Promise<OrganizationRow> {
    requireSiteAdmin(principal);
    const org = await this.existing(name);
    const settings = validateSettings(change);
    const changed = await this.deps.db.transaction(async (tx) => {
      const r = new AdminOrganizationRepository(tx);
      if (!(await r.lockOrganization(name))) throw notFound();
      const sharing = await changeSharing(tx, name, {
        globalModuleSharing: settings.globalModuleSharing,
        globalProviderSharing: settings.globalProviderSharing,
      });
      await r.updateSettings(name, settings);
      await recordAudit(tx, {
        organization: organizationOf(org),
        actor: auditActorOf(principal),
        resource: { type: 'organization', id: org.external_id, action: 'admin_update' },
        meta: settingsMeta(settings),
      });
      return sharing;
    });
    if (changed) await this.deps.relay.flushWithin();
    return this.existing(name);
  }

  async delete(principal: Principal | undefined, name: string): Promise<void> {
    requireSiteAdmin(principal);
    if (!(await deleteOrganization(this.deps, name, auditActorOf(principal)))) throw notFound();
  }

  /** The organizations a registry of `name` is shared with (none listed while it shares globally). */
  async listConsumers(principal: Principal | undefined, name: string, registry: Registry, page: PageRequest) {
    requireSiteAdmin(principal);
    const org = await this.existing(name);
    const w = pageWindow(page);
    const globallyShared = registry === 'modules' ? org.global_module_sharing : org.global_provider_sharing;
    // Enabling global sharing clears the consumers, so this only guards against stale rows.
    const { rows, total } = globallyShared
      ? { rows: [], total: 0 }
      : await this.admin.listConsumers(org.name, registry, w.size, w.offset);
    return { organizations: rows, page: pageInfo(w, total) };
  }

  /** Replaces the module consumers (the module registry's own endpoint). */
  async updateModuleConsumers(principal: Principal | undefined, name: string, consumers: string[]) {
    requireSiteAdmin(principal);
    await this.existing(name);
    await this.setConsumers(principal, name, { moduleConsumers: consumers }, { modules: 'consumers' });
  }

  /** Replaces the module and/or provider consumers given (at least one). */
  async updatePartnerships(principal: Principal | undefined, name: string, change: SharingChange) {
    requireSiteAdmin(principal);
    await this.existing(name);
    if (change.moduleConsumers === undefined && change.providerConsumers === undefined) {
      throw invalidAttribute(
        'ADMIN_ORGS_PARTNERSHIPS_EMPTY',
        'partnerships',
        'module-consumers or provider-consumers is required',
      );
    }
    await this.setConsumers(principal, name, change, {
      modules: 'module_consumers',
      providers: 'provider_consumers',
    });
  }

  private async existing(name: string): Promise<OrganizationRow> {
    const org = await this.tenancy.getOrganization(name);
    if (!org) throw notFound();
    return org;
  }

  /** Replaces consumer lists after checking every consumer is another existing organization. */
  private async setConsumers(
    principal: Principal | undefined,
    name: string,
    change: SharingChange,
    pointers: ConsumerPointers,
  ): Promise<void> {
    const lists: Array<[Registry, string[] | undefined]> = [
      ['modules', change.moduleConsumers],
      ['providers', change.providerConsumers],
    ];
    const changed = await this.deps.db
      .transaction(async (tx) => {
        const r = new AdminOrganizationRepository(tx);
        if (!(await r.lockOrganization(name))) throw notFound();
        const known = await r.existingNames(lists.flatMap(([, names]) => names ?? []));
        const errors = new ValidationErrors();
        for (const [registry, names] of lists) {
          if (!names) continue;
          const pointer = pointers[registry] ?? 'consumers';
          requireOtherOrganizations(name, names, pointer);
          const missing = names.filter((n) => !known.has(n));
          if (missing.length === 0) continue;
          errors.add(
            'ADMIN_ORGS_CONSUMER_NOT_FOUND',
            pointer,
            `Organization not found: ${listForDetail(missing)}`,
          );
        }
        errors.throwIfAny();
        const org = await new TenancyRepository(tx).getOrganization(name);
        if (!org) throw notFound();
        await recordAudit(tx, {
          organization: organizationOf(org),
          actor: auditActorOf(principal),
          resource: { type: 'organization', id: org.external_id, action: 'update_registry_consumers' },
          meta: { module_consumers: change.moduleConsumers, provider_consumers: change.providerConsumers },
        });
        return changeSharing(tx, name, change);
      })
      .catch((err: unknown) => {
        // A consumer deleted between the existence check and the insert.
        if (isForeignKeyViolation(err)) {
          throw invalidAttribute(
            'ADMIN_ORGS_CONSUMER_NOT_FOUND',
            Object.values(pointers)[0] ?? 'consumers',
            'Organization not found',
          );
        }
        throw err;
      });
    if (changed) await this.deps.relay.flushWithin();
  }
}

/**
 * Applies a sharing change inside the caller's transaction (the organization's row is locked):
 * stores the global flags and consumer lists that changed and, when anything did, enqueues
 * admin-orgs.org-sharing-changed in the same transaction. Returns whether anything changed.
 */
async function changeSharing(tx: Queryable, name: string, change: SharingChange): Promise<boolean> {
  const r = new AdminOrganizationRepository(tx);
  const [before] = await r.sharingStates([name]);
  if (!before) throw notFound();
  const after: SharingState = applySharingChange(before, change);
  if (isSameSharing(before, after)) return false;
  await r.updateSettings(name, {
    globalModuleSharing: after.globalModuleSharing,
    globalProviderSharing: after.globalProviderSharing,
  });
  if (after.moduleConsumers.join() !== before.moduleConsumers.join()) {
    await r.replaceConsumers(name, 'modules', after.moduleConsumers);
  }
  if (after.providerConsumers.join() !== before.providerConsumers.join()) {
    await r.replaceConsumers(name, 'providers', after.providerConsumers);
  }
  await enqueueSharingChanged(tx, after);
  return true;
}

/** The settings to store; every value checked (422 naming the field). */
function validateSettings(change: OrganizationSettingsChange): OrganizationSettings {
  if (typeof change.applyTimeout === 'string') {
    requireDuration(change.applyTimeout, 'apply_timeout', 'Apply timeout');
  }
  if (typeof change.planTimeout === 'string') {
    requireDuration(change.planTimeout, 'plan_timeout', 'Plan timeout');
  }
  const limit = change.workspaceLimit;
  if (typeof limit === 'number' && (limit < 0 || limit > MAX_WORKSPACE_LIMIT)) {
    throw invalidAttribute(
      'ADMIN_ORGS_INVALID_WORKSPACE_LIMIT',
      'workspace_limit',
      'Workspace limit must be a whole number of 0 or more',
    );
  }
  return change;
}

/**
 * Client-supplied names in an error detail: at most five, non-printable-ASCII characters escaped
 * (details travel in gRPC metadata, which must be short printable ASCII).
 */
function listForDetail(names: string[]): string {
  const shown = names
    .slice(0, 5)
    .map((n) =>
      n.slice(0, 100).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    );
  return names.length > 5 ? `${shown.join(', ')} and ${names.length - 5} more` : shown.join(', ');
}

const isForeignKeyViolation = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === '23503';

/** The settings an admin set, in snake case (the trail's `meta`); none of them is secret. */
function settingsMeta(settings: OrganizationSettings): Record<string, AuditMetaValue | undefined> {
  return Object.fromEntries(
    Object.entries(settings).map(([key, value]) => [
      key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
      value,
    ]),
  );
}
