import * as grpc from '@grpc/grpc-js';
import { contracts } from '@policyhub/contracts';
import { type ClientCredential, createClient, readServiceError } from '@policyhub/grpc-runtime';
import type { WorkspaceDirectory, WorkspaceInfo } from '../domain/ports.js';
import { dependencyFailure } from './dependency-errors.js';

/** Workspaces from admin-orgs, looked up internally (no principal): runs authorizes itself. */
export function grpcWorkspaceDirectory(
  address: string,
  credential: ClientCredential,
): WorkspaceDirectory & { close(): void } {
  const client = createClient(contracts().policyhub.adminorgs.v1.Workspaces, address, credential);
  return {
    async getWorkspace(id: string): Promise<WorkspaceInfo | undefined> {
      try {
        const ws = (await client.GetWorkspace({ id })).workspace!;
        return {
          id: ws.id,
          organization: ws.organization,
          organizationId: ws.organizationId,
          projectId: ws.projectId,
          name: ws.name,
        };
      } catch (err) {
        if (readServiceError(err).status === grpc.status.NOT_FOUND) return undefined;
        return dependencyFailure('admin-orgs', err);
      }
    },
    close: () => client.close(),
  };
}
