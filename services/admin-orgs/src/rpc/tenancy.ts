import type { adminorgsV1 } from '@policyhub/contracts';
import { type Db, isUniqueViolation, pageInfo, pageWindow } from '@policyhub/db';
import { invalidAttribute, newId, notFound, unprocessable } from '@policyhub/errors';
import { enqueueEvent, type OutboxRelay, TOPICS } from '@policyhub/events';
import { canAccessOrganization, type Handlers, PERMISSIONS, type Principal } from '@policyhub/grpc-runtime';
import { AdminOrganizationRepository } from '../db/admin-organization-repository.js';
import { type OrganizationRow, type TeamRow, TenancyRepository } from '../db/tenancy-repository.js';
import {
  OWNER,
  PROJECT_NAME_PATTERN,
  requireAccess,
  requireEmail,
  requireName,
  requireOwner,
  requirePermission,
  requirePrincipal,
  validatePermissions,
} from '../domain/rules.js';
import { enqueueSharingChanged } from '../events/sharing-changed.js';
import { toOrganization, toProject, toTeam, toWorkspace } from './mappers.js';

export interface TenancyDeps {
  db: Db;
  relay: OutboxRelay;
}

const DEFAULT_PROJECT = 'Default Project';

/** Batch lookups keep what the caller may see; internal calls (no principal) see everything. */
const visibleTo =
  (principal: Principal | undefined) =>
  (row: { organization: string }): boolean =>
    !principal || canAccessOrganization(principal, row.organization);

const permissionsIn = (p: Principal | undefined, org: string): string[] =>
  p?.isSiteAdmin ? [...PERMISSIONS, OWNER] : [...(p?.memberships.get(org) ?? [])];

/** An organization the caller may see, else NOT_FOUND (a disabled one is invisible to non-admins). */
async function visibleOrganization(repo: TenancyRepository, p: Principal | undefined, name: string) {
  requireAccess(p, name);
  const org = await repo.getOrganization(name);
  if (!org || (org.is_disabled && !p?.isSiteAdmin)) throw notFound();
  return org;
}

const NAME_TAKEN = {
  organization: 'ADMIN_ORGS_ORGANIZATION_NAME_TAKEN',
  team: 'ADMIN_ORGS_TEAM_NAME_TAKEN',
  project: 'ADMIN_ORGS_PROJECT_NAME_TAKEN',
  workspace: 'ADMIN_ORGS_WORKSPACE_NAME_TAKEN',
} as const;

const nameTaken = (what: keyof typeof NAME_TAKEN) =>
  invalidAttribute(NAME_TAKEN[what], 'name', 'Name has already been taken');

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
      return toOrganization((await repo.getOrganization(req.name))!, [...PERMISSIONS, OWNER]);
    },

    async GetOrganization(req, { principal }) {
      if (!principal) {
        // Internal callers (storage refusing uploads) see every organization, disabled ones too.
        const org = await repo.getOrganization(req.name);
        if (!org) throw notFound();
        return toOrganization(org);
      }
      const org = await visibleOrganization(repo, principal, req.name);
      return toOrganization(org, permissionsIn(principal, org.name));
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
      return toOrganization(org, permissionsIn(principal, req.name));
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
    await enqueueEvent(tx, TOPICS.organizationDeleted, organizationId, {
      organization: name,
      organizationId,
    });
    for (const state of await sharing.sharingStates(producers)) await enqueueSharingChanged(tx, state);
    return true;
  });
}

const TEAM_VISIBILITIES = ['secret', 'organization'] as const;

function readVisibility(value: string): TeamRow['visibility'] {
  if (value === '') return 'secret';
  if ((TEAM_VISIBILITIES as readonly string[]).includes(value)) return value as TeamRow['visibility'];
  throw invalidAttribute(
    'ADMIN_ORGS_INVALID_TEAM_VISIBILITY',
    'visibility',
    'Visibility must be secret or organization',
  );
}

const isOwnerOrAdmin = (p: Principal | undefined, organization: string): boolean =>
  !!p?.isSiteAdmin || !!p?.memberships.get(organization)?.includes(OWNER);

/**
 * Upstream visibility: owners (and site admins) see every team; other members see `organization`
 * teams and the teams they belong to; internal callers see all.
 */
const canSeeTeam = (p: Principal | undefined, team: TeamRow): boolean =>
  !p ||
  isOwnerOrAdmin(p, team.organization) ||
  (canAccessOrganization(p, team.organization) &&
    (team.visibility === 'organization' || team.user_ids.includes(p.userId)));

export function teamHandlers({ db }: TenancyDeps): Handlers<adminorgsV1.TeamsHandlers> {
  const repo = new TenancyRepository(db);
  const visibleTeam = async (principal: Principal | undefined, id: string) => {
    const team = await repo.getTeam(id);
    if (!team) throw notFound();
    await visibleOrganization(repo, principal, team.organization);
    if (!canSeeTeam(principal, team)) throw notFound();
    return team;
  };
  const ownedTeam = async (principal: Principal | undefined, id: string) => {
    const team = await visibleTeam(principal, id);
    requireOwner(principal, team.organization);
    return team;
  };
  const knownUsers = async (ids: string[]) => {
    const { rows } = await db.query<{ id: string }>('SELECT id FROM users WHERE id = ANY($1)', [ids]);
    const found = new Set(rows.map((r) => r.id));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0)
      throw unprocessable('ADMIN_ORGS_USER_NOT_FOUND', `user not found: ${missing.join(', ')}`);
  };
  return {
    async CreateTeam(req, { principal }) {
      await visibleOrganization(repo, principal, req.organization);
      requireOwner(principal, req.organization);
      requireName(req.name, 'name', 'ADMIN_ORGS_INVALID_TEAM_NAME');
      const permissions = validatePermissions(req.permissions);
      const visibility = readVisibility(req.visibility);
      const id = newId('team');
      try {
        await repo.insertTeam(id, req.organization, req.name, permissions, visibility);
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken('team');
        throw err;
      }
      return toTeam((await repo.getTeam(id))!);
    },

    async GetTeam(req, { principal }) {
      return toTeam(await visibleTeam(principal, req.id));
    },

    async ListTeams(req, { principal }) {
      const caller = requirePrincipal(principal);
      await visibleOrganization(repo, caller, req.organization);
      const w = pageWindow(req.page);
      const { rows, total } = await repo.listTeams(
        req.organization,
        {
          viewerId: isOwnerOrAdmin(caller, req.organization) ? null : caller.userId,
          query: req.query,
          names: req.names,
        },
        w.size,
        w.offset,
      );
      return { teams: rows.map(toTeam), page: pageInfo(w, total) };
    },

    async DeleteTeam(req, { principal }) {
      const team = await ownedTeam(principal, req.id);
      if (team.name === OWNER) {
        throw unprocessable('ADMIN_ORGS_OWNERS_TEAM', 'the owners team of an organization cannot be deleted');
      }
      await repo.deleteTeam(team.id);
      return {};
    },

    async AddTeamMembers(req, { principal }) {
      const team = await ownedTeam(principal, req.teamId);
      await knownUsers(req.userIds);
      await repo.addMembers(team.id, req.userIds);
      return toTeam((await repo.getTeam(team.id))!);
    },

    async RemoveTeamMembers(req, { principal }) {
      const team = await ownedTeam(principal, req.teamId);
      await db.transaction(async (tx) => {
        const r = new TenancyRepository(tx);
        // Row lock: two concurrent removals cannot each leave the other's owner as the last one.
        await r.lockTeam(team.id);
        await r.removeMembers(team.id, req.userIds);
        if (team.name === OWNER && (await r.getTeam(team.id))?.user_ids.length === 0) {
          throw unprocessable(
            'ADMIN_ORGS_LAST_OWNER',
            'the owners team must keep at least one member; add another owner first',
          );
        }
      });
      return toTeam((await repo.getTeam(team.id))!);
    },
  };
}

export function projectHandlers({ db, relay }: TenancyDeps): Handlers<adminorgsV1.ProjectsHandlers> {
  const repo = new TenancyRepository(db);
  const visibleProject = async (principal: Principal | undefined, id: string) => {
    const project = await repo.getProject(id);
    if (!project) throw notFound();
    await visibleOrganization(repo, principal, project.organization);
    return project;
  };
  return {
    async CreateProject(req, { principal }) {
      await visibleOrganization(repo, principal, req.organization);
      requirePermission(principal, req.organization, 'manage-projects');
      requireName(req.name, 'name', 'ADMIN_ORGS_INVALID_PROJECT_NAME', PROJECT_NAME_PATTERN, 40);
      try {
        return toProject(
          await repo.insertProject({
            id: newId('prj'),
            organization: req.organization,
            name: req.name,
            description: req.description,
            is_default: false,
          }),
        );
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken('project');
        throw err;
      }
    },

    async GetProject(req, { principal }) {
      return toProject(await visibleProject(principal, req.id));
    },

    async ListProjects(req, { principal }) {
      await visibleOrganization(repo, principal, req.organization);
      const w = pageWindow(req.page);
      const { rows, total } = await repo.listProjects(req.organization, req.searchName, w.size, w.offset);
      return { projects: rows.map(toProject), page: pageInfo(w, total) };
    },

    async UpdateProject(req, { principal }) {
      const project = await visibleProject(principal, req.id);
      requirePermission(principal, project.organization, 'manage-projects');
      if (req.name !== undefined && req.name !== null) {
        requireName(req.name, 'name', 'ADMIN_ORGS_INVALID_PROJECT_NAME', PROJECT_NAME_PATTERN, 40);
      }
      try {
        return toProject(
          (await repo.updateProject(req.id, {
            name: req.name ?? undefined,
            description: req.description ?? undefined,
          }))!,
        );
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken('project');
        throw err;
      }
    },

    async DeleteProject(req, { principal }) {
      const project = await visibleProject(principal, req.id);
      requirePermission(principal, project.organization, 'manage-projects');
      if (project.is_default) {
        throw unprocessable(
          'ADMIN_ORGS_DEFAULT_PROJECT',
          'the default project of an organization cannot be deleted',
        );
      }
      await db.transaction(async (tx) => {
        const workspaceIds = await new TenancyRepository(tx).deleteProject(project.id);
        for (const workspaceId of workspaceIds) {
          await enqueueEvent(tx, TOPICS.workspaceDeleted, workspaceId, {
            organization: project.organization,
            workspaceId,
          });
        }
        await enqueueEvent(tx, TOPICS.projectDeleted, project.id, {
          organization: project.organization,
          projectId: project.id,
        });
      });
      await relay.flushWithin();
      return {};
    },

    async BatchGetProjects(req, { principal }) {
      const rows = await repo.getProjects(req.ids);
      return {
        projects: rows.filter(visibleTo(principal)).map(toProject),
      };
    },
  };
}

export function workspaceHandlers({ db, relay }: TenancyDeps): Handlers<adminorgsV1.WorkspacesHandlers> {
  const repo = new TenancyRepository(db);
  const visibleWorkspace = async (principal: Principal | undefined, id: string) => {
    const ws = await repo.getWorkspace(id);
    if (!ws) throw notFound();
    await visibleOrganization(repo, principal, ws.organization);
    return ws;
  };
  const projectIn = async (organization: string, projectId: string) => {
    const project = projectId ? await repo.getProject(projectId) : await repo.defaultProject(organization);
    if (!project || project.organization !== organization) {
      throw invalidAttribute('ADMIN_ORGS_PROJECT_NOT_FOUND', 'project.id', 'Project not found');
    }
    return project;
  };
  return {
    async CreateWorkspace(req, { principal }) {
      const org = await visibleOrganization(repo, principal, req.organization);
      requirePermission(principal, req.organization, 'manage-workspaces');
      requireName(req.name, 'name', 'ADMIN_ORGS_INVALID_WORKSPACE_NAME');
      const project = await projectIn(req.organization, req.projectId);
      try {
        // Count and insert under the organization's row lock, so concurrent creates cannot
        // together exceed the workspace limit (each sees the others' committed workspaces).
        return await db.transaction(async (tx) => {
          const r = new TenancyRepository(tx);
          const limit = await r.lockWorkspaceLimit(org.name);
          if (limit === undefined) throw notFound();
          if (limit !== null && limit > 0 && (await r.countWorkspaces(req.organization)) >= limit) {
            throw unprocessable(
              'ADMIN_ORGS_WORKSPACE_LIMIT',
              `the organization has reached its workspace limit of ${limit}`,
            );
          }
          return toWorkspace(
            await r.insertWorkspace({
              id: newId('ws'),
              organization: req.organization,
              project_id: project.id,
              name: req.name,
              description: req.description,
            }),
          );
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken('workspace');
        throw err;
      }
    },

    async GetWorkspace(req, { principal }) {
      if (!principal) {
        const ws = await repo.getWorkspace(req.id);
        if (!ws) throw notFound();
        return toWorkspace(ws);
      }
      return toWorkspace(await visibleWorkspace(principal, req.id));
    },

    async ListWorkspaces(req, { principal }) {
      await visibleOrganization(repo, principal, req.organization);
      const w = pageWindow(req.page);
      const { rows, total } = await repo.listWorkspaces(req.organization, req.searchName, w.size, w.offset);
      return { workspaces: rows.map(toWorkspace), page: pageInfo(w, total) };
    },

    async UpdateWorkspace(req, { principal }) {
      const ws = await visibleWorkspace(principal, req.id);
      requirePermission(principal, ws.organization, 'manage-workspaces');
      if (req.name !== undefined && req.name !== null) {
        requireName(req.name, 'name', 'ADMIN_ORGS_INVALID_WORKSPACE_NAME');
      }
      const projectId = req.projectId ? (await projectIn(ws.organization, req.projectId)).id : undefined;
      try {
        return toWorkspace(
          (await repo.updateWorkspace(req.id, {
            name: req.name ?? undefined,
            description: req.description ?? undefined,
            projectId,
          }))!,
        );
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken('workspace');
        throw err;
      }
    },

    async DeleteWorkspace(req, { principal }) {
      const ws = await visibleWorkspace(principal, req.id);
      requirePermission(principal, ws.organization, 'manage-workspaces');
      await db.transaction(async (tx) => {
        if (await new TenancyRepository(tx).deleteWorkspace(ws.id)) {
          await enqueueEvent(tx, TOPICS.workspaceDeleted, ws.id, {
            organization: ws.organization,
            workspaceId: ws.id,
          });
        }
      });
      await relay.flushWithin();
      return {};
    },

    async BatchGetWorkspaces(req, { principal }) {
      const rows = await repo.getWorkspaces(req.ids);
      return {
        workspaces: rows.filter(visibleTo(principal)).map(toWorkspace),
      };
    },
  };
}
