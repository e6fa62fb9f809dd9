import type { Queryable } from '@policyhub/db';
import { type storageV1, uploadOwnerKind } from '@policyhub/contracts';
import { enqueueEvent, TOPICS } from '@policyhub/events';
import type { UploadOutcome } from '../domain/upload-outcomes.js';
import { declarationMessage } from '../rpc/declarations.js';
import type { UploadSession } from '../domain/upload-sessions.js';

/**
 * Writes storage.upload-completed to the outbox in the caller's transaction (the one that marks
 * the session used, or the sweeper's that marks it expired). Keyed by the owner, so one owner's events stay in order on Kafka.
 */
export function enqueueUploadCompleted(tx: Queryable, session: UploadSession, outcome: UploadOutcome) {
  const common = {
    organization: session.organization,
    ownerKind: uploadOwnerKind.fromKnownWord(session.ownerKind),
    // Also the word under the old field, for consumers of the release before the enum during a
    // rolling upgrade (ADR 0035); drop it one release later.
    legacyOwnerKind: session.ownerKind,
    ownerId: session.ownerId,
    ownerParentId: session.ownerParentId,
    ok: outcome.ok,
    sizeBytes: outcome.sizeBytes,
  };
  const event: Omit<storageV1.UploadCompleted, 'eventId' | 'occurredAt'> = outcome.ok
    ? {
        ...common,
        objectKey: session.objectKey,
        sha256: outcome.sha256,
        files: outcome.files,
        declaration: outcome.declaration ? declarationMessage(outcome.declaration) : null,
      }
    : { ...common, errorCode: outcome.rejection.code, errorMessage: outcome.rejection.message };
  return enqueueEvent(tx, TOPICS.uploadCompleted, session.ownerId, event);
}
