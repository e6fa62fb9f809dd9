import * as grpc from '@grpc/grpc-js';
import { unavailable } from '@policyhub/errors';
import { type Principal, readServiceError, rethrowAsAppError } from '@policyhub/grpc-runtime';
import type { OrganizationFacts, OrganizationState, TenancyDirectory } from '../domain/ports.js';
import type { PolicySetsClients } from './index.js';

/**
 * The tenancy directory over admin-orgs' gRPC API: an organization as the caller sees it (404 when
 * missing or hidden) with its free-tier entitlement, and which workspaces/projects exist in an
 * organization. Workspace and project lookups are internal (no principal) and batched.
 */
export class AdminOrgsLookup implements TenancyDirectory {
  constructor(private readonly clients: PolicySetsClients) {}

  async organization(principal: Principal | undefined, name: string): Promise<OrganizationFacts> {
    const res = await this.clients.organizations.GetOrganization({ name }, { principal }).catch(asAppError);
    const org = res.organization!;
    return { name: org.name, id: org.externalId, isFreeTier: org.isFreeTier };
  }

  /**
   * The organization holding `name` now, asked without a principal (so a disabled organization is
   * seen with its flag): its id and whether it is disabled, `missing`, or `unknown` when admin-orgs
   * cannot be reached. `uploadableStatus` turns it into whether an upload may be applied.
   */
  async organizationState(name: string): Promise<OrganizationState> {
    try {
      const org = (await this.clients.organizations.GetOrganization({ name })).organization!;
      return { id: org.externalId, isDisabled: org.isDisabled };
    } catch (err) {
      const { status } = readServiceError(err);
      if (status === grpc.status.NOT_FOUND) return 'missing';
      if (status === grpc.status.UNAVAILABLE) return 'unknown';
      throw err;
    }
  }

  async workspacesIn(organization: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const res = await this.clients.workspaces.BatchGetWorkspaces({ ids: [...ids] }).catch(asAppError);
    return new Set(res.workspaces.filter((w) => w.organization === organization).map((w) => w.id));
  }

  async projectsIn(organization: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const res = await this.clients.projects.BatchGetProjects({ ids: [...ids] }).catch(asAppError);
    return new Set(res.projects.filter((p) => p.organization === organization).map((p) => p.id));
  }
}

/** admin-orgs' own errors pass through (e.g. NOT_FOUND); its absence is a 503, not a 500. */
function asAppError(err: unknown): never {
  if (readServiceError(err).status === grpc.status.UNAVAILABLE) {
    throw unavailable(
      'POLICY_SETS_ADMIN_ORGS_UNAVAILABLE',
      'the organization service is unavailable; try again shortly',
    );
  }
  return rethrowAsAppError(err);
}
