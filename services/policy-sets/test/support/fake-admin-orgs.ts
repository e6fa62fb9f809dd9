import type * as grpc from '@grpc/grpc-js';
import { contracts } from '@policyhub/contracts';
import { notFound } from '@policyhub/errors';
import { bindServer, createGrpcServer, implement, shutdownServer } from '@policyhub/grpc-runtime';
import { testAuth } from '@policyhub/testing';

export interface FakeTenancy {
  /** `id`: the organization's immutable id; `org-id-<name>` unless given (a re-created one gets another). */
  organizations: Record<string, { id?: string; isFreeTier?: boolean; isDisabled?: boolean }>;
  workspaces: Record<string, { organization: string; projectId: string }>;
  projects: Record<string, { organization: string }>;
  /**
   * Runs after BatchGetWorkspaces has read its answer and before it is sent: a test deletes a
   * workspace here to land exactly between an attach's check and its write.
   */
  afterWorkspacesRead?: ((ids: string[]) => Promise<void>) | undefined;
}

/**
 * Stands in for admin-orgs in component tests of policy-sets (a service never imports another
 * service's code): organizations with their entitlement, and batch lookups of workspaces and
 * projects, served from `tenancy` as it is at call time.
 */
export async function startFakeAdminOrgs(
  tenancy: FakeTenancy,
): Promise<{ address: string; close(): Promise<void> }> {
  const v1 = contracts().policyhub.adminorgs.v1;
  const server: grpc.Server = createGrpcServer();
  const logger = { error: () => {} };
  const organization = (name: string) => {
    const org = Object.hasOwn(tenancy.organizations, name) ? tenancy.organizations[name] : undefined;
    if (!org) throw notFound();
    return {
      name,
      externalId: org.id ?? `org-id-${name}`,
      isFreeTier: org.isFreeTier ?? false,
      isDisabled: org.isDisabled ?? false,
    };
  };
  server.addService(
    v1.Organizations.service,
    implement(
      {
        GetOrganization: async (req: { name: string }) => ({ organization: organization(req.name) }),
      } as never,
      { logger, auth: testAuth('admin-orgs') },
    ),
  );
  server.addService(
    v1.Workspaces.service,
    implement(
      {
        BatchGetWorkspaces: async (req: { ids: string[] }) => {
          const workspaces = req.ids
            .filter((id) => tenancy.workspaces[id])
            .map((id) => ({ id, ...tenancy.workspaces[id]! }));
          await tenancy.afterWorkspacesRead?.(req.ids);
          return { workspaces };
        },
      } as never,
      { logger, auth: testAuth('admin-orgs') },
    ),
  );
  server.addService(
    v1.Projects.service,
    implement(
      {
        BatchGetProjects: async (req: { ids: string[] }) => ({
          projects: req.ids
            .filter((id) => tenancy.projects[id])
            .map((id) => ({ id, ...tenancy.projects[id]! })),
        }),
      } as never,
      { logger, auth: testAuth('admin-orgs') },
    ),
  );
  const address = await bindServer(server, '127.0.0.1:0');
  return { address, close: () => shutdownServer(server) };
}
