import type { adminorgsV1 } from '@policyhub/contracts';
import { type Db, pageInfo, pageWindow, type Queryable } from '@policyhub/db';
import { invalidAttribute, notFound, ValidationErrors } from '@policyhub/errors';
import type { OutboxRelay } from '@policyhub/events';
import type { Handlers } from '@policyhub/grpc-runtime';
import {
  AdminOrganizationRepository,
  TRIGRAM_SEARCH_PLAN,
  type OrganizationSearch,
  type OrganizationSettings,
} from '../db/admin-organization-repository.js';
import { type OrganizationRow, TenancyRepository } from '../db/tenancy-repository.js';
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
import { toOrganization } from './mappers.js';
import { deleteOrganization } from './organizations.js';

export interface AdminOrganizationDeps {
  db: Db;
  relay: OutboxRelay;
}

/** The request field each consumer list came from (domain terms), for 422s. */
type ConsumerPointers = Partial<Record<Registry, string>>;

const MAX_WORKSPACE_LIMIT = 2_147_483_647;

/**
 * The site-admin organization API. Every handler first requires a site admin (anyone else gets
 * NOT_FOUND, indistinguishable from a missing organization), then checks that the organization
 * exists before looking at the request's values.
 */
export function adminOrganizationHandlers({
  db,
  relay,
}: AdminOrganizationDeps): Handlers<adminorgsV1.AdminOrganizationsHandlers> {
  const repo = new AdminOrganizationRepository(db);
  const tenancy = new TenancyRepository(db);

  const existing = async (name: string): Promise<OrganizationRow> => {
    const org = await tenancy.getOrganization(name);
    if (!org) throw notFound();
    return org;
  };

  const listConsumers = async (
    req: adminorgsV1.ListModuleConsumersRequest__Output | adminorgsV1.ListProviderConsumersRequest__Output,
    registry: Registry,
  ) => {
    const org = await existing(req.name);
    const w = pageWindow(req.page);
    const globallyShared = registry === 'modules' ? org.global_module_sharing : org.global_provider_sharing;
    // Enabling global sharing clears the consumers, so this only guards against stale rows.
    const { rows, total } = globallyShared
      ? { rows: [], total: 0 }
      : await repo.listConsumers(org.name, registry, w.size, w.offset);
    return { organizations: rows.map((r) => toOrganization(r)), page: pageInfo(w, total) };
  };

  return {
    async ListAdminOrganizations(req, { principal }) {
      requireSiteAdmin(principal);
      const search: OrganizationSearch = {
        query: (req.query ?? '').trim(),
        name: (req.queryName ?? '').trim(),
        email: (req.queryEmail ?? '').trim(),
        moduleProducer: req.moduleProducer,
        providerProducer: req.providerProducer,
      };
      const w = pageWindow(req.page);
      const isTextSearch = search.query !== '' || search.name !== '' || search.email !== '';
      const { rows, ...counts } = isTextSearch
        ? await db.transaction(
            (tx) => new AdminOrganizationRepository(tx).searchWithCounts(search, w.size, w.offset),
            { setLocal: TRIGRAM_SEARCH_PLAN },
          )
        : await Promise.all([repo.search(search, w.size, w.offset), repo.countMatching(search)]).then(
            ([page, c]) => ({ rows: page, ...c }),
          );
      return {
        organizations: rows.map((r) => toOrganization(r)),
        page: pageInfo(w, counts.total),
        statusCounts: {
          total: counts.total,
          active: counts.total - counts.disabled,
          disabled: counts.disabled,
        },
      };
    },

    async GetAdminOrganization(req, { principal }) {
      requireSiteAdmin(principal);
      return { organization: toOrganization(await existing(req.name)) };
    },

    async UpdateAdminOrganization(req, { principal }) {
      requireSiteAdmin(principal);
      await existing(req.name);
      const settings = validateSettings(req);
      const changed = await db.transaction(async (tx) => {
        const r = new AdminOrganizationRepository(tx);
        if (!(await r.lockOrganization(req.name))) throw notFound();
        const sharing = await changeSharing(tx, req.name, {
          globalModuleSharing: settings.globalModuleSharing,
          globalProviderSharing: settings.globalProviderSharing,
        });
        await r.updateSettings(req.name, settings);
        return sharing;
      });
      if (changed) await relay.flushWithin();
      return { organization: toOrganization(await existing(req.name)) };
    },

    async DeleteAdminOrganization(req, { principal }) {
      requireSiteAdmin(principal);
      if (!(await deleteOrganization(db, req.name))) throw notFound();
      await relay.flushWithin();
      return {};
    },

    async ListModuleConsumers(req, { principal }) {
      requireSiteAdmin(principal);
      return listConsumers(req, 'modules');
    },

    async ListProviderConsumers(req, { principal }) {
      requireSiteAdmin(principal);
      return listConsumers(req, 'providers');
    },

    async UpdateModuleConsumers(req, { principal }) {
      requireSiteAdmin(principal);
      await existing(req.name);
      await setConsumers(req.name, { moduleConsumers: req.consumers }, { modules: 'consumers' });
      return {};
    },

    async UpdateRegistryPartnerships(req, { principal }) {
      requireSiteAdmin(principal);
      await existing(req.name);
      const change: SharingChange = {
        moduleConsumers: req.moduleConsumers?.names,
        providerConsumers: req.providerConsumers?.names,
      };
      if (change.moduleConsumers === undefined && change.providerConsumers === undefined) {
        throw invalidAttribute(
          'ADMIN_ORGS_PARTNERSHIPS_EMPTY',
          'partnerships',
          'module-consumers or provider-consumers is required',
        );
      }
      await setConsumers(req.name, change, {
        modules: 'module_consumers',
        providers: 'provider_consumers',
      });
      return {};
    },
  };

  /** Replaces consumer lists after checking every consumer is another existing organization. */
  async function setConsumers(
    name: string,
    change: SharingChange,
    pointers: ConsumerPointers,
  ): Promise<void> {
    const lists: Array<[Registry, string[] | undefined]> = [
      ['modules', change.moduleConsumers],
      ['providers', change.providerConsumers],
    ];
    const changed = await db
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
    if (changed) await relay.flushWithin();
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
function validateSettings(req: adminorgsV1.UpdateAdminOrganizationRequest__Output): OrganizationSettings {
  const settings: OrganizationSettings = {
    accessBetaTools: req.accessBetaTools,
    globalModuleSharing: req.globalModuleSharing,
    globalProviderSharing: req.globalProviderSharing,
    isDisabled: req.isDisabled,
    workerSudoEnabled: req.workerSudoEnabled,
  };
  if (req.applyTimeout !== undefined) {
    requireDuration(req.applyTimeout, 'apply_timeout', 'Apply timeout');
    settings.applyTimeout = req.applyTimeout;
  } else if (req.clearApplyTimeout) {
    settings.applyTimeout = null;
  }
  if (req.planTimeout !== undefined) {
    requireDuration(req.planTimeout, 'plan_timeout', 'Plan timeout');
    settings.planTimeout = req.planTimeout;
  } else if (req.clearPlanTimeout) {
    settings.planTimeout = null;
  }
  if (req.workspaceLimit !== undefined) {
    if (req.workspaceLimit < 0 || req.workspaceLimit > MAX_WORKSPACE_LIMIT) {
      throw invalidAttribute(
        'ADMIN_ORGS_INVALID_WORKSPACE_LIMIT',
        'workspace_limit',
        'Workspace limit must be a whole number of 0 or more',
      );
    }
    settings.workspaceLimit = req.workspaceLimit;
  } else if (req.clearWorkspaceLimit) {
    settings.workspaceLimit = null;
  }
  return settings;
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
