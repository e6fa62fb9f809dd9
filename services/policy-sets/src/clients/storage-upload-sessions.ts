import * as grpc from '@grpc/grpc-js';
import { archiveLayout, timestampToIso, toTimestamp, uploadOwnerKind } from '@policyhub/contracts';
import { unavailable } from '@policyhub/errors';
import { readServiceError, rethrowAsAppError } from '@policyhub/grpc-runtime';
import type { UploadSession, UploadSessions } from '../domain/ports.js';
import { UPLOAD_OWNER_KIND } from '../domain/versions.js';
import type { PolicySetsClients } from './index.js';

/** Upload sessions of policy set versions over storage's gRPC API. */
export class StorageUploadSessions implements UploadSessions {
  constructor(private readonly clients: PolicySetsClients) {}

  async create(request: Parameters<UploadSessions['create']>[0]): Promise<UploadSession> {
    const session = await this.clients.storage
      .CreateUploadSession({
        organization: request.organization,
        organizationId: request.organizationId ?? undefined,
        ownerKind: uploadOwnerKind.fromKnownWord(UPLOAD_OWNER_KIND),
        ownerId: request.versionId,
        ownerParentId: request.policySetId,
        expiresAt: toTimestamp(request.expiresAt),
        layout: archiveLayout.fromKnownWord(request.layout),
        layoutRoot: request.layoutRoot,
        createdBy: request.createdBy,
        requiredPermission: request.requiredPermission,
      })
      .catch(storageError);
    const expiresAt = timestampToIso(session.expiresAt);
    if (!expiresAt) throw new Error('storage opened an upload session without an expiry');
    if (!session.sessionId) throw new Error('storage opened an upload session without an id');
    return { sessionId: session.sessionId, expiresAt };
  }
}

/** storage's own errors pass through; its absence is a 503, not a 500. */
function storageError(err: unknown): never {
  const status = readServiceError(err).status;
  if (status === grpc.status.UNAVAILABLE || status === grpc.status.DEADLINE_EXCEEDED) {
    throw unavailable(
      'POLICY_SETS_STORAGE_UNAVAILABLE',
      'the storage service is unavailable; try again shortly',
    );
  }
  return rethrowAsAppError(err);
}
