import type { ServiceDeps } from '@policyhub/service-kit';
import type {
  ObjectStore,
  ObjectStreams,
  PolicySetSource,
  UploadSessions,
  WorkspaceDirectory,
} from './domain/ports.js';

/**
 * What the use cases get, built once by the composition (service.ts): the shared service deps
 * (database, outbox relay, logger, …) and the ports to other services.
 */
export interface Deps extends ServiceDeps {
  workspaces: WorkspaceDirectory;
  policySets: PolicySetSource;
  objects: ObjectStore;
  /** Streaming object access (plan JSON in and out, configuration archives out). */
  streams: ObjectStreams;
  uploadSessions: UploadSessions;
  /** Largest plan JSON accepted over HTTP (PLAN_MAX_BYTES). */
  planMaxBytes: number;
  /** Called after a transaction queued object deletions, so the sweeper runs soon. */
  onObjectsOrphaned: () => void;
}
