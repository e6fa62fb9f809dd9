import type { Db } from '@policyhub/db';
import type {
  ObjectStore,
  ObjectStreams,
  PolicySetSource,
  UploadSessions,
  WorkspaceDirectory,
} from './domain/ports.js';

/** What runs' use cases get; service.ts builds it once. */
export interface Deps {
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
  onObjectsOrphaned: () => void;
}
