import * as grpc from '@grpc/grpc-js';
import { contracts, organizationPermission } from '@policyhub/contracts';
import { unavailable } from '@policyhub/errors';
import {
  type ClientCredential,
  createClient,
  readServiceError,
  rethrowAsAppError,
} from '@policyhub/grpc-runtime';
import type {
  OrganizationStatus,
  OrganizationStatusLookup,
  UploadRightQuery,
} from '../domain/organization-status.js';

/**
 * Organization status and the creator's right from admin-orgs (internal calls: no principal, so
 * disabled organizations are visible with their flag). One or two calls per check; uploads are
 * rare next to API requests.
 */
export class AdminOrgsOrganizationStatus implements OrganizationStatusLookup {
  private readonly organizations;
  private readonly identity;

  constructor(address: string, credential: ClientCredential) {
    const v1 = contracts().policyhub.adminorgs.v1;
    this.organizations = createClient(v1.Organizations, address, credential);
    this.identity = createClient(v1.Identity, address, credential);
  }

  async statusOf(query: UploadRightQuery): Promise<OrganizationStatus> {
    const { organization, organizationId, createdBy, requiredPermission } = query;
    try {
      const org = (await this.organizations.GetOrganization({ name: organization })).organization!;
      // The name was registered again after the session's organization was deleted.
      if (organizationId && org.externalId && org.externalId !== organizationId) return 'missing';
      if (org.isDisabled) return 'disabled';
      if (!createdBy || !requiredPermission) return 'active';
      const { permitted } = await this.identity.CheckPermission({
        subjectId: createdBy,
        organization,
        organizationId: organizationId || undefined,
        permission: organizationPermission.fromKnownWord(requiredPermission),
      });
      return permitted ? 'active' : 'forbidden';
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
    this.identity.close();
  }
}
