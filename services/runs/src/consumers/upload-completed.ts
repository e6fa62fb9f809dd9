import { type storageV1, uploadCompletedOwnerKind, uploadOwnerKind } from '@policyhub/contracts';
import type { Db } from '@policyhub/db';
import {
  type ConsumedEvent,
  type EventTransport,
  startConsumer,
  type Subscription,
  TOPICS,
} from '@policyhub/events';
import type { Logger } from '@policyhub/telemetry';
import { CV_UPLOAD_OWNER_KIND } from '../domain/configuration-versions.js';
import { applyConfigurationUpload } from '../workflows/configuration-versions.js';

export const UPLOAD_COMPLETED_CONSUMER = 'runs.upload-completed';

/**
 * Configuration version uploads: storage.upload-completed events of owner kind
 * "configuration-version" settle their version (and may queue a run); other owner kinds are
 * someone else's and are acknowledged without a transaction. Exactly once: the event id is
 * recorded in the same transaction as the effect.
 */
export function startUploadCompletedConsumer(options: {
  db: Db;
  transport: EventTransport;
  logger: Logger;
}): Promise<Subscription> {
  return startConsumer({
    name: UPLOAD_COMPLETED_CONSUMER,
    db: options.db,
    transport: options.transport,
    logger: options.logger,
    handlers: [
      {
        topic: TOPICS.uploadCompleted,
        accepts: (p: storageV1.UploadCompleted__Output) =>
          uploadCompletedOwnerKind(p) === uploadOwnerKind.fromKnownWord(CV_UPLOAD_OWNER_KIND),
        handle: (event: ConsumedEvent<storageV1.UploadCompleted__Output>, tx) =>
          applyConfigurationUpload(tx, event.payload),
      },
    ],
  });
}
