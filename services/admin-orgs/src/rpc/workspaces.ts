import type { adminorgsV1 } from '@policyhub/contracts';
import { isUniqueViolation, pageInfo, pageWindow } from '@policyhub/db';
import { invalidAttribute, newId, notFound, unprocessable } from '@policyhub/errors';
import type { Handlers, Principal } from '@policyhub/grpc-runtime';
import { TenancyRepository } from '../db/tenancy-repository.js';
import { requireName, requirePermission } from '../domain/rules.js';
import { enqueueWorkspaceDeleted } from '../events/tenancy-events.js';
import { toWorkspace } from './mappers.js';
import { nameTaken, type TenancyDeps, visibleOrganization, visibleTo } from './tenancy-access.js';

export function workspaceHandlers({ db, relay }: TenancyDeps): Handlers<adminorgsV1.WorkspacesHandlers> {
  const repo = new TenancyRepository(db);
  const visibleWorkspace = async (principal: Principal | undefined, id: string) => {
    const ws = await repo.getWorkspace(id);
    if (!ws) throw notFound();
    await visibleOrganization(repo, principal, ws.organization);
    return ws;
  };
  /** The project `projectId` of the organization (its default project when absent), else a 422. */
  const projectIn = async (organization: string, projectId: string | undefined) => {
    const project =
      projectId === undefined ? await repo.defaultProject(organization) : await repo.getProject(projectId);
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
          const workspace = await r.insertWorkspace({
            id: newId('ws'),
            organization: req.organization,
            project_id: project.id,
            name: req.name,
            description: req.description ?? '',
          });
          return { workspace: toWorkspace(workspace) };
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
        return { workspace: toWorkspace(ws) };
      }
      return { workspace: toWorkspace(await visibleWorkspace(principal, req.id)) };
    },

    async ListWorkspaces(req, { principal }) {
      await visibleOrganization(repo, principal, req.organization);
      const w = pageWindow(req.page);
      const { rows, total } = await repo.listWorkspaces(
        req.organization,
        req.searchName ?? '',
        w.size,
        w.offset,
      );
      return { workspaces: rows.map(toWorkspace), page: pageInfo(w, total) };
    },

    async UpdateWorkspace(req, { principal }) {
      const ws = await visibleWorkspace(principal, req.id);
      requirePermission(principal, ws.organization, 'manage-workspaces');
      if (req.name !== undefined && req.name !== null) {
        requireName(req.name, 'name', 'ADMIN_ORGS_INVALID_WORKSPACE_NAME');
      }
      const projectId =
        req.projectId === undefined ? undefined : (await projectIn(ws.organization, req.projectId)).id;
      try {
        const updated = await repo.updateWorkspace(req.id, {
          name: req.name ?? undefined,
          description: req.description ?? (req.clearDescription ? '' : undefined),
          projectId,
        });
        return { workspace: toWorkspace(updated!) };
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
          await enqueueWorkspaceDeleted(tx, ws.organization, ws.id);
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
