import { isUniqueViolation, pageInfo, pageWindow } from '@policyhub/db';
import { invalidAttribute, newId, notFound, unprocessable } from '@policyhub/errors';
import { type AuditAct, auditActorOf, changedAttributes } from '@policyhub/events';
import type { Principal } from '@policyhub/permissions';
import { TenancyRepository, type WorkspaceFilter, type WorkspaceRow } from '../db/tenancy-repository.js';
import type { Deps } from '../deps.js';
import { requireName, requirePermission } from '../domain/rules.js';
import { enqueueWorkspaceDeleted } from '../events/tenancy-events.js';
import { recordAudit } from './audit-trail.js';
import type { PageRequest } from './page.js';
import { nameTaken, visibleOrganization, visibleTo } from './tenancy-access.js';

const requireWorkspaceName = (name: string) => requireName(name, 'name', 'ADMIN_ORGS_INVALID_WORKSPACE_NAME');

const workspaceAct = (principal: Principal | undefined, ws: WorkspaceRow, action: string): AuditAct => ({
  organization: { name: ws.organization, id: ws.organization_id },
  actor: auditActorOf(principal),
  resource: { type: 'workspace', id: ws.id, action },
});

/** Workspaces of an organization; changes need manage-workspaces. */
export class WorkspaceUseCases {
  private readonly tenancy: TenancyRepository;

  constructor(private readonly deps: Deps) {
    this.tenancy = new TenancyRepository(deps.db);
  }

  /** A new workspace in the project given (the organization's default project when undefined). */
  async create(
    principal: Principal | undefined,
    organization: string,
    workspace: { name: string; description: string; projectId: string | undefined },
  ): Promise<WorkspaceRow> {
    const org = await visibleOrganization(this.tenancy, principal, organization);
    requirePermission(principal, organization, 'manage-workspaces');
    requireWorkspaceName(workspace.name);
    const project = await this.projectIn(organization, workspace.projectId);
    try {
      // Count and insert under the organization's row lock, so concurrent creates cannot
      // together exceed the workspace limit (each sees the others' committed workspaces).
      return await this.deps.db.transaction(async (tx) => {
        const r = new TenancyRepository(tx);
        const limit = await r.lockWorkspaceLimit(org.name);
        if (limit === undefined) throw notFound();
        if (limit !== null && limit > 0 && (await r.countWorkspaces(organization)) >= limit) {
          throw unprocessable(
            'ADMIN_ORGS_WORKSPACE_LIMIT',
            `the organization has reached its workspace limit of ${limit}`,
          );
        }
        const row = await r.insertWorkspace({
          id: newId('ws'),
          organization,
          project_id: project.id,
          name: workspace.name,
          description: workspace.description,
        });
        await recordAudit(tx, {
          ...workspaceAct(principal, row, 'create'),
          meta: { name: row.name, project_id: project.id },
        });
        return row;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken('workspace');
      throw err;
    }
  }

  /** A workspace of an organization the caller may see (internal callers: any), else NOT_FOUND. */
  async get(principal: Principal | undefined, id: string): Promise<WorkspaceRow> {
    if (principal) return this.visible(principal, id);
    const ws = await this.tenancy.getWorkspace(id);
    if (!ws) throw notFound();
    return ws;
  }

  /** The workspace named `name` in an organization the caller may see, else NOT_FOUND. */
  async getByName(
    principal: Principal | undefined,
    organization: string,
    name: string,
  ): Promise<WorkspaceRow> {
    await visibleOrganization(this.tenancy, principal, organization);
    const ws = await this.tenancy.getWorkspaceByName(organization, name);
    if (!ws) throw notFound();
    return ws;
  }

  /** The organization's workspaces narrowed by `filter`, a page of them in its order. */
  async list(
    principal: Principal | undefined,
    organization: string,
    filter: WorkspaceFilter,
    page: PageRequest,
  ) {
    await visibleOrganization(this.tenancy, principal, organization);
    const w = pageWindow(page);
    const { rows, total } = await this.tenancy.listWorkspaces(organization, filter, w.size, w.offset);
    return { workspaces: rows, page: pageInfo(w, total) };
  }

  /** Changes the fields given (undefined = unchanged); a project must be one of the organization's. */
  async update(
    principal: Principal | undefined,
    id: string,
    change: { name?: string | undefined; description?: string | undefined; projectId?: string | undefined },
  ): Promise<WorkspaceRow> {
    const ws = await this.visible(principal, id);
    requirePermission(principal, ws.organization, 'manage-workspaces');
    if (change.name !== undefined) requireWorkspaceName(change.name);
    const projectId =
      change.projectId === undefined
        ? undefined
        : (await this.projectIn(ws.organization, change.projectId)).id;
    try {
      return await this.deps.db.transaction(async (tx) => {
        const row = (await new TenancyRepository(tx).updateWorkspace(id, { ...change, projectId }))!;
        await recordAudit(tx, {
          ...workspaceAct(principal, ws, 'update'),
          meta: { name: row.name, changed: changedAttributes(change) },
        });
        return row;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken('workspace');
      throw err;
    }
  }

  /** Deletes the workspace; other services follow the event. */
  async delete(principal: Principal | undefined, id: string): Promise<void> {
    const ws = await this.visible(principal, id);
    requirePermission(principal, ws.organization, 'manage-workspaces');
    await this.deps.db.transaction(async (tx) => {
      if (await new TenancyRepository(tx).deleteWorkspace(ws.id)) {
        await enqueueWorkspaceDeleted(tx, ws.organization, ws.id);
        await recordAudit(tx, { ...workspaceAct(principal, ws, 'destroy'), meta: { name: ws.name } });
      }
    });
    await this.deps.relay.flushWithin();
  }

  /** The workspaces among `ids` the caller may see (internal callers: all). */
  async batchGet(principal: Principal | undefined, ids: string[]): Promise<WorkspaceRow[]> {
    return (await this.tenancy.getWorkspaces(ids)).filter(visibleTo(principal));
  }

  private async visible(principal: Principal | undefined, id: string): Promise<WorkspaceRow> {
    const ws = await this.tenancy.getWorkspace(id);
    if (!ws) throw notFound();
    await visibleOrganization(this.tenancy, principal, ws.organization);
    return ws;
  }

  /** The project `projectId` of the organization (its default project when undefined), else a 422. */
  private async projectIn(organization: string, projectId: string | undefined) {
    const project =
      projectId === undefined
        ? await this.tenancy.defaultProject(organization)
        : await this.tenancy.getProject(projectId);
    if (!project || project.organization !== organization) {
      throw invalidAttribute('ADMIN_ORGS_PROJECT_NOT_FOUND', 'project.id', 'Project not found');
    }
    return project;
  }
}
