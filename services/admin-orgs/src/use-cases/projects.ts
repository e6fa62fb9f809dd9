import { isUniqueViolation, pageInfo, pageWindow } from '@policyhub/db';
import { newId, notFound, unprocessable } from '@policyhub/errors';
import { type AuditAct, auditActorOf, changedAttributes } from '@policyhub/events';
import type { Principal } from '@policyhub/permissions';
import { type OrganizationRow, type ProjectRow, TenancyRepository } from '../db/tenancy-repository.js';
import type { Deps } from '../deps.js';
import { PROJECT_NAME_PATTERN, requireName, requirePermission } from '../domain/rules.js';
import { enqueueProjectDeleted, enqueueWorkspaceDeleted } from '../events/tenancy-events.js';
import { organizationOf, recordAudit } from './audit-trail.js';
import type { PageRequest } from './page.js';
import { nameTaken, visibleOrganization, visibleTo } from './tenancy-access.js';

const requireProjectName = (name: string) =>
  requireName(name, 'name', 'ADMIN_ORGS_INVALID_PROJECT_NAME', PROJECT_NAME_PATTERN, 40);

const projectAct = (
  principal: Principal | undefined,
  org: OrganizationRow,
  project: ProjectRow,
  action: string,
): AuditAct => ({
  organization: organizationOf(org),
  actor: auditActorOf(principal),
  resource: { type: 'project', id: project.id, action },
});

/** Projects of an organization; changes need manage-projects. */
export class ProjectUseCases {
  private readonly tenancy: TenancyRepository;

  constructor(private readonly deps: Deps) {
    this.tenancy = new TenancyRepository(deps.db);
  }

  async create(
    principal: Principal | undefined,
    organization: string,
    project: { name: string; description: string },
  ): Promise<ProjectRow> {
    const org = await visibleOrganization(this.tenancy, principal, organization);
    requirePermission(principal, organization, 'manage-projects');
    requireProjectName(project.name);
    try {
      return await this.deps.db.transaction(async (tx) => {
        const row = await new TenancyRepository(tx).insertProject({
          id: newId('prj'),
          organization,
          name: project.name,
          description: project.description,
          is_default: false,
        });
        await recordAudit(tx, { ...projectAct(principal, org, row, 'create'), meta: { name: row.name } });
        return row;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken('project');
      throw err;
    }
  }

  /** A project of an organization the caller may see, else NOT_FOUND. */
  async get(principal: Principal | undefined, id: string): Promise<ProjectRow> {
    return (await this.visible(principal, id)).project;
  }

  private async visible(principal: Principal | undefined, id: string) {
    const project = await this.tenancy.getProject(id);
    if (!project) throw notFound();
    const org = await visibleOrganization(this.tenancy, principal, project.organization);
    return { project, org };
  }

  async list(principal: Principal | undefined, organization: string, search: string, page: PageRequest) {
    await visibleOrganization(this.tenancy, principal, organization);
    const w = pageWindow(page);
    const { rows, total } = await this.tenancy.listProjects(organization, search, w.size, w.offset);
    return { projects: rows, page: pageInfo(w, total) };
  }

  /** Changes the fields given (undefined = unchanged). */
  async update(
    principal: Principal | undefined,
    id: string,
    change: { name?: string | undefined; description?: string | undefined },
  ): Promise<ProjectRow> {
    const { project, org } = await this.visible(principal, id);
    requirePermission(principal, project.organization, 'manage-projects');
    if (change.name !== undefined) requireProjectName(change.name);
    try {
      return await this.deps.db.transaction(async (tx) => {
        const row = (await new TenancyRepository(tx).updateProject(id, change))!;
        await recordAudit(tx, {
          ...projectAct(principal, org, project, 'update'),
          meta: { name: row.name, changed: changedAttributes(change) },
        });
        return row;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken('project');
      throw err;
    }
  }

  /** Deletes the project with its workspaces; other services follow the events. */
  async delete(principal: Principal | undefined, id: string): Promise<void> {
    const { project, org } = await this.visible(principal, id);
    requirePermission(principal, project.organization, 'manage-projects');
    if (project.is_default) {
      throw unprocessable(
        'ADMIN_ORGS_DEFAULT_PROJECT',
        'the default project of an organization cannot be deleted',
      );
    }
    await this.deps.db.transaction(async (tx) => {
      const workspaceIds = await new TenancyRepository(tx).deleteProject(project.id);
      for (const workspaceId of workspaceIds) {
        await enqueueWorkspaceDeleted(tx, project.organization, workspaceId);
      }
      await enqueueProjectDeleted(tx, project.organization, project.id);
      await recordAudit(tx, {
        ...projectAct(principal, org, project, 'destroy'),
        meta: { name: project.name, workspaces_deleted: workspaceIds.length },
      });
    });
    await this.deps.relay.flushWithin();
  }

  /** The projects among `ids` the caller may see (internal callers: all). */
  async batchGet(principal: Principal | undefined, ids: string[]): Promise<ProjectRow[]> {
    return (await this.tenancy.getProjects(ids)).filter(visibleTo(principal));
  }
}
