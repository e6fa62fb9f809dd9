import type { ServiceDeps } from '@policyhub/service-kit';
import type { OrganizationStatusLookup } from './domain/organization-status.js';
import type { UploadLimits } from './domain/upload-limits.js';
import type { ObjectStore } from './objects/object-store.js';

/**
 * What the use cases get, built once by the composition (service.ts): the shared service deps
 * (database, outbox relay, logger, …), the object store and the upload settings.
 */
export interface Deps extends ServiceDeps {
  store: ObjectStore;
  /** Uploads are refused while their organization is disabled or gone (ADR 0018). */
  organizations: OrganizationStatusLookup;
  limits: UploadLimits;
  /** Where uploads and objects bound for a store without a writer of its own are staged (UPLOAD_TMP_DIR). */
  stagingDir: string;
}
