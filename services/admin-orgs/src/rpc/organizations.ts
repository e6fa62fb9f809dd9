import type { adminorgsV1 } from '@policyhub/contracts';
import { type Db, isUniqueViolation, pageInfo, pageWindow } from '@policyhub/db';
import { invalidAttribute, newId, notFound } from '@policyhub/errors';
import { type Handlers, PERMISSIONS } from '@policyhub/grpc-runtime';
import { AdminOrganizationRepository } from '../db/admin-organization-repository.js';
import { type OrganizationRow, TenancyRepository } from '../db/tenancy-repository.js';
import { OWNER, requireEmail, requireName, requireOwner, requirePrincipal } from '../domain/rules.js';
import { enqueueSharingChanged } from '../events/sharing-changed.js';
import { enqueueOrganizationDeleted } from '../events/tenancy-events.js';
import { toOrganization } from './mappers.js';
import { nameTaken, permissionsIn, type TenancyDeps, visibleOrganization } from './tenancy-access.js';

const DEFAULT_PROJECT = 'Default Project';

export function organizationHandlers({
  db,
  relay,
}: TenancyDeps): Handlers<adminorgsV1.OrganizationsHandlers> {
  const repo = new TenancyRepository(db);
  return {
    async CreateOrganization(req, { principal }) {
      const caller = requirePrincipal(principal);
      requireName(req.name, 'name', 'ADMIN_ORGS_INVALID_ORGANIZATION_NAME', undefined, 40);
      requireEmail(req.email, 'email', 'ADMIN_ORGS_INVALID_EMAIL');
      try {
        await db.transaction(async (tx) => {
          const r = new TenancyRepository(tx);
          await r.insertOrganization(req.name, newId('org'), req.email);
          const ownersId = newId('team');
          await r.insertTeam(ownersId, req.name, OWNER, [...PERMISSIONS], 'organization');
          await r.addMembers(ownersId, [caller.userId]);
          await r.insertProject({
            id: newId('prj'),
            organization: req.name,
            name: DEFAULT_PROJECT,
            description: '',
            is_default: true,
          });
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken('organization');
        throw err;
      }
      return {
        organization: toOrganization((await repo.getOrganization(req.name))!, [...PERMISSIONS, OWNER]),
      };
    },

    async GetOrganization(req, { principal }) {
      if (!principal) {
        // Internal callers (storage refusing uploads) see every organization, disabled ones too.
        const org = await repo.getOrganization(req.name);
        if (!org) throw notFound();
        return { organization: toOrganization(org) };
      }
      const org = await visibleOrganization(repo, principal, req.name);
      return { organization: toOrganization(org, permissionsIn(principal, org.name)) };
    },

    async ListOrganizations(req, { principal }) {
      const caller = requirePrincipal(principal);
      const w = pageWindow(req.page);
      const { rows, total } = await repo.listOrganizations(
        caller.isSiteAdmin ? null : caller.userId,
        w.size,
        w.offset,
      );
      return {
        organizations: rows.map((o: OrganizationRow) => toOrganization(o, permissionsIn(caller, o.name))),
        page: pageInfo(w, total),
      };
    },

    async UpdateOrganization(req, { principal }) {
      await visibleOrganization(repo, principal, req.name);
      requireOwner(principal, req.name);
      if (req.newName !== undefined && req.newName !== null && req.newName !== req.name) {
        // Other services key their data (policy sets, runs, archives) by organization name and
        // there is no rename event: refuse rather than orphan that data.
        throw invalidAttribute(
          'ADMIN_ORGS_RENAME_UNSUPPORTED',
          'name',
          'Renaming an organization is not supported',
        );
      }
      if (req.email !== undefined && req.email !== null)
        requireEmail(req.email, 'email', 'ADMIN_ORGS_INVALID_EMAIL');
      try {
        await repo.updateOrganization(req.name, {
          name: req.newName ?? undefined,
          email: req.email ?? undefined,
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken('organization');
        throw err;
      }
      const org = (await repo.getOrganization(req.newName ?? req.name))!;
      return { organization: toOrganization(org, permissionsIn(principal, req.name)) };
    },

    async DeleteOrganization(req, { principal }) {
      await visibleOrganization(repo, principal, req.name);
      requireOwner(principal, req.name);
      await deleteOrganization(db, req.name);
      await relay.flushWithin();
      return {};
    },
  };
}

/** Deletes an organization and everything it owns here; other services follow the event. */
export async function deleteOrganization(db: Db, name: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    // Producers that list this organization as a registry consumer lose it (FK cascade); tell them too.
    const sharing = new AdminOrganizationRepository(tx);
    const producers = await sharing.producersOfDeleted(name);
    const organizationId = await new TenancyRepository(tx).deleteOrganization(name);
    if (organizationId === undefined) return false;
    // Keyed by the id: consumers delete what was recorded with it, whoever holds the name by then.
    await enqueueOrganizationDeleted(tx, name, organizationId);
    for (const state of await sharing.sharingStates(producers)) await enqueueSharingChanged(tx, state);
    return true;
  });
}
