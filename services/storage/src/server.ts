import type * as grpc from '@grpc/grpc-js';
import { contracts } from '@policyhub/contracts';
import { implement } from '@policyhub/grpc-runtime';
import type { ServiceDeps } from '@policyhub/service-kit';
import type { Deps } from './deps.js';
import { storageHandlers } from './rpc/storage.js';
import { StorageUseCases } from './use-cases/storage-use-cases.js';

/** Adds the storage gRPC service to an unbound server (tests bind it on port 0). */
export function registerStorage(server: grpc.Server, service: ServiceDeps, deps: Deps): void {
  const v1 = contracts().policyhub.storage.v1;
  const opts = { logger: service.logger, isUnavailable: service.isUnavailable, auth: service.auth };
  server.addService(
    v1.Storage.service,
    // Only services call storage (the gateway for uploads); never on a user's behalf.
    implement(storageHandlers(new StorageUseCases(deps), opts), { ...opts, allow: ['service'] }),
  );
}
