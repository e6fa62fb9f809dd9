import type { Db } from '@policyhub/db';
import type { UploadTokens } from '@policyhub/grpc-runtime';
import type { PlanLogTokens } from './domain/plan-log-token.js';
import type {
  ObjectStore,
  ObjectStreams,
  PermissionCheck,
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
  /** Whether the subject a plan log URL was handed to may still read runs. */
  permissions: PermissionCheck;
  /** Mints and verifies plan log URLs' tokens (keys derived from the signing keys). */
  logTokens: PlanLogTokens;
  /** Mints a pending configuration version's upload URL token from its session id on every read (ADR 0059). */
  uploadTokens: UploadTokens;
  /** Largest plan JSON accepted over HTTP (PLAN_MAX_BYTES). */
  planMaxBytes: number;
  /** Called after a transaction queued object deletions, so the sweeper runs soon. */
  onObjectsOrphaned: () => void;
}
