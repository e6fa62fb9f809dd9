import type * as grpc from '@grpc/grpc-js';
import { contracts } from '@policyhub/contracts';
import { implement } from '@policyhub/grpc-runtime';
import type { ServiceDeps } from '@policyhub/service-kit';
import type { Deps } from './deps.js';
import { adminOrganizationHandlers } from './rpc/admin-organizations.js';
import { auditTrailHandlers } from './rpc/audit-trail.js';
import { identityHandlers } from './rpc/identity.js';
import { organizationHandlers } from './rpc/organizations.js';
import { projectHandlers } from './rpc/projects.js';
import { teamHandlers } from './rpc/teams.js';
import { workspaceHandlers } from './rpc/workspaces.js';
import { AdminOrganizationUseCases } from './use-cases/admin-organizations.js';
import { AuditTrailUseCases } from './use-cases/audit-trail.js';
import { IdentityUseCases } from './use-cases/identity.js';
import { OrganizationUseCases } from './use-cases/organizations.js';
import { ProjectUseCases } from './use-cases/projects.js';
import { TeamAndOrganizationTokenUseCases } from './use-cases/team-and-organization-tokens.js';
import { TeamUseCases } from './use-cases/teams.js';
import { WorkspaceUseCases } from './use-cases/workspaces.js';

/** Adds every admin-orgs gRPC service to an unbound server (tests bind it on port 0). */
export function registerAdminOrgs(server: grpc.Server, service: ServiceDeps, deps: Deps): void {
  const v1 = contracts().policyhub.adminorgs.v1;
  const opts = { logger: service.logger, isUnavailable: service.isUnavailable, auth: service.auth };
  server.addService(
    v1.Identity.service,
    implement(identityHandlers(new IdentityUseCases(deps), new TeamAndOrganizationTokenUseCases(deps)), opts),
  );
  server.addService(
    v1.Organizations.service,
    implement(organizationHandlers(new OrganizationUseCases(deps)), opts),
  );
  server.addService(v1.Teams.service, implement(teamHandlers(new TeamUseCases(deps)), opts));
  server.addService(v1.Projects.service, implement(projectHandlers(new ProjectUseCases(deps)), opts));
  server.addService(v1.Workspaces.service, implement(workspaceHandlers(new WorkspaceUseCases(deps)), opts));
  server.addService(
    v1.AdminOrganizations.service,
    implement(adminOrganizationHandlers(new AdminOrganizationUseCases(deps)), opts),
  );
  server.addService(v1.AuditTrail.service, implement(auditTrailHandlers(new AuditTrailUseCases(deps)), opts));
}
