import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../route-context.js';
import { registerMetaRoutes } from './meta/routes.js';
import { registerOrganizationRoutes } from './organizations/routes.js';
import { registerProjectRoutes } from './projects/routes.js';
import { registerTeamRoutes } from './teams/routes.js';
import { registerUserRoutes } from './users/routes.js';
import { registerWorkspaceRoutes } from './workspaces/routes.js';

/** Every resource's routes, mounted under /api/v2. One line per resource type. */
export function registerResources(app: FastifyInstance, ctx: RouteContext): void {
  registerMetaRoutes(app, ctx);
  registerUserRoutes(app, ctx);
  registerOrganizationRoutes(app, ctx);
  registerTeamRoutes(app, ctx);
  registerProjectRoutes(app, ctx);
  registerWorkspaceRoutes(app, ctx);
}
