import type { storageV1 } from '@policyhub/contracts';
import type { Db } from '@policyhub/db';
import {
  type ConsumedEvent,
  type EventTransport,
  startConsumer,
  type Subscription,
  TOPICS,
} from '@policyhub/events';
import type { Logger } from '@policyhub/telemetry';
import { applyConfigurationUpload } from '../workflows/configuration-versions.js';

export const UPLOAD_COMPLETED_CONSUMER = 'runs.upload-completed';

/**
 * Configuration version uploads: storage.upload-completed events of owner kind
 * "configuration-version" settle their version (and may queue a run); other owner kinds are
 * someone else's. Exactly once: the event id is recorded in the same transaction.
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
        handle: (event: ConsumedEvent<storageV1.UploadCompleted__Output>, tx) =>
          applyConfigurationUpload(tx, event.payload),
      },
    ],
  });
}
