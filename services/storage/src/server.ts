import type * as grpc from '@grpc/grpc-js';
import { contracts } from '@policyhub/contracts';
import { implement } from '@policyhub/grpc-runtime';
import type { Deps } from './deps.js';
import { storageHandlers } from './rpc/storage.js';

/** Adds the storage gRPC service to an unbound server (tests bind it on port 0). */
export function registerStorage(server: grpc.Server, deps: Deps): void {
  const v1 = contracts().policyhub.storage.v1;
  server.addService(
    v1.Storage.service,
    implement(storageHandlers(deps), {
      logger: deps.logger,
      isUnavailable: deps.isUnavailable,
      auth: deps.auth,
      // Only services call storage (the gateway for uploads); never on a user's behalf.
      allow: ['service'],
    }),
  );
}
