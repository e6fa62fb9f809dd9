import type { ServiceDeps } from '@policyhub/service-kit';
import type { PolicySetsClients } from './clients/index.js';

/** What policy-sets' handlers and consumers get: the shared service deps plus its clients. */
export interface PolicySetsDeps extends ServiceDeps {
  clients: PolicySetsClients;
}
