import type * as grpc from '@grpc/grpc-js';
import { contracts } from '@policyhub/contracts';
import { implement } from '@policyhub/grpc-runtime';
import type { ServiceDeps } from '@policyhub/service-kit';
import { adminOrganizationHandlers } from './rpc/admin-organizations.js';
import { identityHandlers } from './rpc/identity.js';
import { organizationHandlers } from './rpc/organizations.js';
import { projectHandlers } from './rpc/projects.js';
import { teamHandlers } from './rpc/teams.js';
import { workspaceHandlers } from './rpc/workspaces.js';

/** Adds every admin-orgs gRPC service to an unbound server (tests bind it on port 0). */
export function registerAdminOrgs(server: grpc.Server, deps: ServiceDeps): void {
  const v1 = contracts().policyhub.adminorgs.v1;
  const opts = { logger: deps.logger, isUnavailable: deps.isUnavailable, auth: deps.auth };
  server.addService(v1.Identity.service, implement(identityHandlers(deps.db), opts));
  server.addService(v1.Organizations.service, implement(organizationHandlers(deps), opts));
  server.addService(v1.Teams.service, implement(teamHandlers(deps), opts));
  server.addService(v1.Projects.service, implement(projectHandlers(deps), opts));
  server.addService(v1.Workspaces.service, implement(workspaceHandlers(deps), opts));
  server.addService(v1.AdminOrganizations.service, implement(adminOrganizationHandlers(deps), opts));
}
