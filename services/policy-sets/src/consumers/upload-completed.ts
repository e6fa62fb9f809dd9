import {
  type commonV1,
  declaredEnforcementLevel,
  type storageV1,
  uploadCompletedOwnerKind,
  uploadOwnerKind,
} from '@policyhub/contracts';
import { type ConsumedEvent, startConsumer, type Subscription, TOPICS } from '@policyhub/events';
import type { ServiceDeps } from '@policyhub/service-kit';
import type { Deps } from '../deps.js';
import { UPLOAD_OWNER_KIND, type VersionDeclaration } from '../domain/versions.js';
import { applyUploadCompleted, type CompletedUpload } from '../use-cases/upload-completed.js';

export const UPLOAD_COMPLETED_CONSUMER = 'policy-sets.upload-completed';

/** Whether an upload-completed event is a policy set version's (the others are someone else's). */
const isPolicySetVersionUpload = (p: storageV1.UploadCompleted__Output): boolean =>
  uploadCompletedOwnerKind(p) === uploadOwnerKind.fromKnownWord(UPLOAD_OWNER_KIND);

const completedUpload = (p: storageV1.UploadCompleted__Output): CompletedUpload => ({
  versionId: p.ownerId,
  organization: p.organization,
  outcome: p.ok
    ? {
        ok: true,
        objectKey: p.objectKey ?? '',
        sizeBytes: p.sizeBytes,
        sha256: p.sha256 ?? '',
        // Absent from events of releases before declarations were recorded: still applied.
        declaration: p.declaration ? declarationOf(p.declaration) : undefined,
      }
    : { ok: false, errorCode: p.errorCode ?? '', errorMessage: p.errorMessage ?? '' },
});

/** A declaration as storage sends it, in the shape the version keeps. */
export const declarationOf = (d: commonV1.ArchiveDeclaration__Output): VersionDeclaration => ({
  root: d.root,
  configPath: d.configPath,
  policies: d.policies.map((p) => ({
    name: p.name,
    // Storage always sends a level; one this release does not know cannot be recorded (the event
    // goes to the dead letters, saying so, rather than a version with a guessed level).
    enforcementLevel: declaredEnforcementLevel.toWord(p.enforcementLevel),
    source: p.source ?? '',
    query: p.query ?? '',
    description: p.description ?? '',
  })),
  sentinelBlocksJson: d.sentinelBlocksJson ?? '',
});

/**
 * storage.upload-completed of policy set versions: the version becomes ready or errored, exactly
 * once (startConsumer records the event id in the same transaction).
 */
export function startUploadCompletedConsumer(
  { db, transport, logger }: ServiceDeps,
  deps: Deps,
): Promise<Subscription> {
  return startConsumer({
    name: UPLOAD_COMPLETED_CONSUMER,
    db,
    transport,
    logger,
    handlers: [
      {
        topic: TOPICS.uploadCompleted,
        accepts: isPolicySetVersionUpload,
        handle: async (event, tx) => {
          const payload = (event as ConsumedEvent<storageV1.UploadCompleted__Output>).payload;
          // A replayed dead letter skips `accepts`.
          if (isPolicySetVersionUpload(payload))
            await applyUploadCompleted(deps, tx, completedUpload(payload));
        },
      },
    ],
  });
}
