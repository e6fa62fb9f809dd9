import { type storageV1, uploadCompletedOwnerKind, uploadOwnerKind } from '@policyhub/contracts';
import { type ConsumedEvent, startConsumer, type Subscription, TOPICS } from '@policyhub/events';
import type { ServiceDeps } from '@policyhub/service-kit';
import { CV_UPLOAD_OWNER_KIND } from '../domain/configuration-versions.js';
import { applyConfigurationUpload, type ConfigurationUpload } from '../use-cases/configuration-versions.js';

export const UPLOAD_COMPLETED_CONSUMER = 'runs.upload-completed';

/**
 * Configuration version uploads: storage.upload-completed events of owner kind
 * "configuration-version" settle their version (and may queue a run); other owner kinds are
 * someone else's and are acknowledged without a transaction. Exactly once: the event id is
 * recorded in the same transaction as the effect.
 */
export function startUploadCompletedConsumer(service: ServiceDeps): Promise<Subscription> {
  return startConsumer({
    name: UPLOAD_COMPLETED_CONSUMER,
    db: service.db,
    transport: service.transport,
    logger: service.logger,
    handlers: [
      {
        topic: TOPICS.uploadCompleted,
        accepts: isConfigurationUpload,
        // A replayed dead letter skips `accepts`: another owner's event is still left alone.
        handle: async (event: ConsumedEvent<storageV1.UploadCompleted__Output>, tx) => {
          if (isConfigurationUpload(event.payload))
            await applyConfigurationUpload(tx, toConfigurationUpload(event.payload));
        },
      },
    ],
  });
}

const isConfigurationUpload = (p: storageV1.UploadCompleted__Output) =>
  uploadCompletedOwnerKind(p) === uploadOwnerKind.fromKnownWord(CV_UPLOAD_OWNER_KIND);

const toConfigurationUpload = (p: storageV1.UploadCompleted__Output): ConfigurationUpload =>
  p.ok
    ? {
        versionId: p.ownerId,
        ok: true,
        objectKey: p.objectKey ?? '',
        sizeBytes: p.sizeBytes,
        sha256: p.sha256 ?? '',
      }
    : { versionId: p.ownerId, ok: false, errorCode: p.errorCode ?? '', errorMessage: p.errorMessage ?? '' };
