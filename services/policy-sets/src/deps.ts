import type { ServiceDeps } from '@policyhub/service-kit';
import type { PolicySetsClients } from './clients/index.js';

/** What policy-sets' handlers and consumers get: the shared service deps plus its clients. */
export interface PolicySetsDeps extends ServiceDeps {
  clients: PolicySetsClients;
  /** How long a version's upload URL works (VERSION_UPLOAD_URL_TTL_SECONDS; the spec's hour by default). */
  uploadUrlTtlMs: number;
}
