import type { adminorgsV1 } from '@policyhub/contracts';
import type { Handlers } from '@policyhub/grpc-runtime';
import type { ProjectUseCases } from '../use-cases/projects.js';
import { toProject } from './mappers.js';

export function projectHandlers(projects: ProjectUseCases): Handlers<adminorgsV1.ProjectsHandlers> {
  return {
    async CreateProject(req, { principal }) {
      const project = await projects.create(principal, req.organization, {
        name: req.name,
        description: req.description ?? '',
      });
      return { project: toProject(project) };
    },

    async GetProject(req, { principal }) {
      return { project: toProject(await projects.get(principal, req.id)) };
    },

    async ListProjects(req, { principal }) {
      const res = await projects.list(principal, req.organization, req.searchName ?? '', req.page);
      return { projects: res.projects.map(toProject), page: res.page };
    },

    async UpdateProject(req, { principal }) {
      const project = await projects.update(principal, req.id, {
        name: req.name ?? undefined,
        description: req.description ?? (req.clearDescription ? '' : undefined),
      });
      return { project: toProject(project) };
    },

    async DeleteProject(req, { principal }) {
      await projects.delete(principal, req.id);
      return {};
    },

    async BatchGetProjects(req, { principal }) {
      return { projects: (await projects.batchGet(principal, req.ids)).map(toProject) };
    },
  };
}
