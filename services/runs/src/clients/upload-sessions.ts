import { contracts, timestampToIso, toTimestamp, uploadOwnerKind } from '@policyhub/contracts';
import { type ClientCredential, createClient } from '@policyhub/grpc-runtime';
import type { UploadSessions } from '../domain/ports.js';
import { dependencyFailure } from './dependency-errors.js';

/** Storage's upload sessions (configuration version archives). */
export function grpcUploadSessions(
  address: string,
  credential: ClientCredential,
): UploadSessions & { close(): void } {
  const client = createClient(contracts().policyhub.storage.v1.Storage, address, credential);
  return {
    async create(request) {
      try {
        const session = await client.CreateUploadSession({
          ...request,
          organizationId: request.organizationId || undefined,
          ownerKind: uploadOwnerKind.fromKnownWord(request.ownerKind),
          expiresAt: toTimestamp(request.expiresAt),
          createdBy: request.createdBy,
          requiredPermission: request.requiredPermission,
        });
        const expiresAt = timestampToIso(session.expiresAt);
        if (!expiresAt) throw new Error('storage opened an upload session without an expiry');
        if (!session.sessionId) throw new Error('storage opened an upload session without an id');
        return { sessionId: session.sessionId, expiresAt };
      } catch (err) {
        return dependencyFailure('storage', err);
      }
    },
    close: () => client.close(),
  };
}
