import type { Db } from '@policyhub/db';
import type {
  ObjectStore,
  ObjectStreams,
  PolicySetSource,
  UploadSessions,
  WorkspaceDirectory,
} from '../domain/ports.js';

/** What the use cases work with: the service's database and the ports to other services. */
export interface WorkflowContext {
  db: Db;
  workspaces: WorkspaceDirectory;
  policySets: PolicySetSource;
  objects: ObjectStore;
  /** Streaming object access (plan JSON in and out, configuration archives out). */
  streams: ObjectStreams;
  uploadSessions: UploadSessions;
  /** Largest plan JSON accepted over HTTP (PLAN_MAX_BYTES). */
  planMaxBytes: number;
  /** Called after a transaction queued object deletions, so the sweeper runs soon. */
  onObjectsOrphaned?: () => void;
}
