import type { Db } from '@policyhub/db';
import type { UploadTokens } from '@policyhub/grpc-runtime';
import type { OutboxRelay } from '@policyhub/events';
import type { Logger } from '@policyhub/telemetry';
import type { OrganizationStatusLookup } from './domain/organization-status.js';
import type { UploadLimits } from './domain/upload-limits.js';
import type { ObjectStore } from './objects/object-store.js';

/** What storage's use cases get; service.ts builds it once. */
export interface Deps {
  db: Db;
  /** Flushed after a transaction that wrote upload-completed, so the owner hears promptly. */
  relay: OutboxRelay;
  /** A lost upload lease and failed clean-ups are logged, not answered. */
  logger: Logger;
  store: ObjectStore;
  /** admin-orgs: uploads are refused while their organization is disabled or gone (ADR 0018). */
  organizations: OrganizationStatusLookup;
  limits: UploadLimits;
  /** Where uploads and objects bound for a store without a writer of its own are staged (UPLOAD_TMP_DIR). */
  stagingDir: string;
  /** Seals and opens upload URL tokens (ADR 0059); keys from INTERNAL_SIGNING_KEYS. */
  uploadTokens: UploadTokens;
}
