import * as grpc from '@grpc/grpc-js';
import { contracts } from '@policyhub/contracts';
import { unavailable } from '@policyhub/errors';
import {
  type ClientCredential,
  createClient,
  readServiceError,
  rethrowAsAppError,
} from '@policyhub/grpc-runtime';
import type { OrganizationStatus, OrganizationStatusLookup } from '../domain/organization-status.js';

/**
 * Organization status from admin-orgs (an internal call: no principal, so disabled organizations
 * are visible with their flag). One call per check; uploads are rare next to API requests.
 */
export class AdminOrgsOrganizationStatus implements OrganizationStatusLookup {
  private readonly organizations;

  constructor(address: string, credential: ClientCredential) {
    this.organizations = createClient(contracts().policyhub.adminorgs.v1.Organizations, address, credential);
  }

  async statusOf(organization: string, organizationId?: string): Promise<OrganizationStatus> {
    try {
      const org = (await this.organizations.GetOrganization({ name: organization })).organization!;
      // The name was registered again after the session's organization was deleted.
      if (organizationId && org.externalId && org.externalId !== organizationId) return 'missing';
      return org.isDisabled ? 'disabled' : 'active';
    } catch (err) {
      const { status } = readServiceError(err);
      if (status === grpc.status.NOT_FOUND) return 'missing';
      if (status === grpc.status.UNAVAILABLE) {
        throw unavailable(
          'STORAGE_ADMIN_ORGS_UNAVAILABLE',
          'the organization service is unavailable; nothing was stored, try the upload again shortly',
        );
      }
      return rethrowAsAppError(err);
    }
  }

  close(): void {
    this.organizations.close();
  }
}
