import { type adminorgsV1, workspaceOrder } from '@policyhub/contracts';
import type { Handlers } from '@policyhub/grpc-runtime';
import type { WorkspaceUseCases } from '../use-cases/workspaces.js';
import { toWorkspace } from './mappers.js';

export function workspaceHandlers(workspaces: WorkspaceUseCases): Handlers<adminorgsV1.WorkspacesHandlers> {
  return {
    async CreateWorkspace(req, { principal }) {
      const workspace = await workspaces.create(principal, req.organization, {
        name: req.name,
        description: req.description ?? '',
        projectId: req.projectId,
      });
      return { workspace: toWorkspace(workspace) };
    },

    async GetWorkspace(req, { principal }) {
      const workspace = req.id
        ? await workspaces.get(principal, req.id)
        : await workspaces.getByName(principal, req.organization, req.name);
      return { workspace: toWorkspace(workspace) };
    },

    async ListWorkspaces(req, { principal }) {
      const res = await workspaces.list(
        principal,
        req.organization,
        {
          search: req.searchName ?? '',
          wildcardName: req.searchWildcardName ?? undefined,
          projectId: req.projectId ?? undefined,
          order: req.order === 'WORKSPACE_ORDER_UNSPECIFIED' ? 'created' : workspaceOrder.toWord(req.order),
        },
        req.page,
      );
      return { workspaces: res.workspaces.map(toWorkspace), page: res.page };
    },

    async UpdateWorkspace(req, { principal }) {
      const workspace = await workspaces.update(principal, req.id, {
        name: req.name ?? undefined,
        description: req.description ?? (req.clearDescription ? '' : undefined),
        projectId: req.projectId,
      });
      return { workspace: toWorkspace(workspace) };
    },

    async DeleteWorkspace(req, { principal }) {
      await workspaces.delete(principal, req.id);
      return {};
    },

    async BatchGetWorkspaces(req, { principal }) {
      return { workspaces: (await workspaces.batchGet(principal, req.ids)).map(toWorkspace) };
    },
  };
}
