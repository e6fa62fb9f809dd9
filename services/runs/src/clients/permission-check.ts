import { contracts, organizationPermission } from '@policyhub/contracts';
import { type ClientCredential, createClient } from '@policyhub/grpc-runtime';
import type { PermissionCheck } from '../domain/ports.js';
import { dependencyFailure } from './dependency-errors.js';

/** admin-orgs' Identity.CheckPermission, called internally (no principal), as storage does. */
export function grpcPermissionCheck(
  address: string,
  credential: ClientCredential,
): PermissionCheck & { close(): void } {
  const client = createClient(contracts().policyhub.adminorgs.v1.Identity, address, credential);
  return {
    async holds(query) {
      try {
        const { permitted } = await client.CheckPermission({
          subjectId: query.subjectId,
          organization: query.organization,
          organizationId: query.organizationId || undefined,
          permission: organizationPermission.fromKnownWord(query.permission),
        });
        return permitted;
      } catch (err) {
        return dependencyFailure('admin-orgs', err);
      }
    },
    close: () => client.close(),
  };
}
