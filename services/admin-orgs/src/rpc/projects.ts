import type { adminorgsV1 } from '@policyhub/contracts';
import { isUniqueViolation, pageInfo, pageWindow } from '@policyhub/db';
import { newId, notFound, unprocessable } from '@policyhub/errors';
import type { Handlers, Principal } from '@policyhub/grpc-runtime';
import { TenancyRepository } from '../db/tenancy-repository.js';
import { PROJECT_NAME_PATTERN, requireName, requirePermission } from '../domain/rules.js';
import { enqueueProjectDeleted, enqueueWorkspaceDeleted } from '../events/tenancy-events.js';
import { toProject } from './mappers.js';
import { nameTaken, type TenancyDeps, visibleOrganization, visibleTo } from './tenancy-access.js';

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
        const project = await repo.insertProject({
          id: newId('prj'),
          organization: req.organization,
          name: req.name,
          description: req.description ?? '',
          is_default: false,
        });
        return { project: toProject(project) };
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken('project');
        throw err;
      }
    },

    async GetProject(req, { principal }) {
      return { project: toProject(await visibleProject(principal, req.id)) };
    },

    async ListProjects(req, { principal }) {
      await visibleOrganization(repo, principal, req.organization);
      const w = pageWindow(req.page);
      const { rows, total } = await repo.listProjects(
        req.organization,
        req.searchName ?? '',
        w.size,
        w.offset,
      );
      return { projects: rows.map(toProject), page: pageInfo(w, total) };
    },

    async UpdateProject(req, { principal }) {
      const project = await visibleProject(principal, req.id);
      requirePermission(principal, project.organization, 'manage-projects');
      if (req.name !== undefined && req.name !== null) {
        requireName(req.name, 'name', 'ADMIN_ORGS_INVALID_PROJECT_NAME', PROJECT_NAME_PATTERN, 40);
      }
      try {
        const updated = await repo.updateProject(req.id, {
          name: req.name ?? undefined,
          description: req.description ?? (req.clearDescription ? '' : undefined),
        });
        return { project: toProject(updated!) };
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
          await enqueueWorkspaceDeleted(tx, project.organization, workspaceId);
        }
        await enqueueProjectDeleted(tx, project.organization, project.id);
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
