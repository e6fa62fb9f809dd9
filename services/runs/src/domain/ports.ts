import type { Permission } from '@policyhub/permissions';
import type { PolicySetSnapshot } from './evaluation.js';

/** What runs needs to know about a workspace (owned by admin-orgs). */
export interface WorkspaceInfo {
  id: string;
  organization: string;
  /** The organization's immutable id (admin-orgs' external id). */
  organizationId: string;
  projectId: string;
  /** The workspace's name (what engines show as the run's workspace); absent when unknown. */
  name?: string | undefined;
}

export interface WorkspaceDirectory {
  /** The workspace regardless of the caller (internal lookup), or undefined when it does not exist. */
  getWorkspace(id: string): Promise<WorkspaceInfo | undefined>;
}

/** A policy set parameter as policy-sets answers it for the engine (sensitive values opened). */
export interface SetParameter {
  key: string;
  value: string;
  sensitive: boolean;
}

/** Whether someone still holds a permission (admin-orgs' Identity.CheckPermission). */
export interface PermissionCheck {
  /** `subjectId`: a user, team or organization id; false for one that no longer exists. */
  holds(query: {
    subjectId: string;
    organization: string;
    organizationId: string | undefined;
    permission: Permission;
  }): Promise<boolean>;
}

export interface PolicySetSource {
  /** The sets of every kind that apply to the workspace now, as snapshots for a check or a stage. */
  applicableSets(workspace: WorkspaceInfo): Promise<PolicySetSnapshot[]>;
  /**
   * The current parameters of these sets of the organization, by set id (a set that no longer
   * exists has none), sensitive values opened: for the evaluator's input only, never stored or
   * logged (docs/adr/0055).
   */
  parameterValues(
    organization: { name: string; id: string | null },
    policySetIds: readonly string[],
  ): Promise<Map<string, SetParameter[]>>;
}

export interface ObjectInfo {
  key: string;
  sizeBytes: number;
  /** Lowercase hex SHA-256 of the bytes. */
  sha256: string;
}

export interface ObjectStore {
  /** `organizationId`: the owning organization's immutable id; its deletion removes the object too. */
  put(key: string, bytes: Buffer, contentType: string, organizationId: string): Promise<void>;
  /** The object's bytes, or undefined when it does not exist. */
  get(key: string): Promise<Buffer | undefined>;
  /** Size and SHA-256 of the objects that exist among `keys`. */
  stat(keys: string[]): Promise<ObjectInfo[]>;
  /**
   * The object's bytes as a stream of chunks, never held whole (plans and archives can be large);
   * iterating throws RUNS_OBJECT_NOT_FOUND when it does not exist.
   */
  open(key: string): AsyncIterable<Buffer>;
  deletePrefixes(prefixes: string[]): Promise<void>;
}

/** Storage key of a run's plan JSON. Keys start with the organization (storage's convention). */
export const planObjectKey = (organization: string, runId: string): string =>
  `${organization}/runs/${runId}/plan.json`;
/** Everything stored for a run. */
export const runObjectPrefix = (organization: string, runId: string): string =>
  `${organization}/runs/${runId}/`;

/**
 * The largest plan JSON runs takes in (storage's default object limit, STORAGE_MAX_OBJECT_BYTES,
 * also bounds what can be stored).
 */
export const MAX_PLAN_BYTES = 100 * 1024 * 1024;

/** Storage's single-use upload sessions (docs/adr/0003-upload-pipeline.md), for configuration version archives. */
export interface UploadSessions {
  create(request: {
    organization: string;
    organizationId: string;
    ownerKind: string;
    ownerId: string;
    ownerParentId: string;
    expiresAt: string;
    /** The creator, who must still hold `requiredPermission` when the upload arrives. */
    createdBy: string;
    requiredPermission: string;
  }): Promise<{
    /** Storage's id of the session: the version keeps it and mints its upload URL from it (ADR 0059). */
    sessionId: string;
    expiresAt: string;
  }>;
}

/** A stored object being written chunk by chunk (backpressure: await each write). */
export interface ObjectWriter {
  write(chunk: Buffer): Promise<void>;
  /** Ends the object and resolves once storage recorded it. */
  finish(): Promise<{ sizeBytes: number }>;
  /** Gives up: nothing is recorded for this writer. */
  abort(): void;
}

/** Streaming access to objects, for documents too large to hold in memory. */
export interface ObjectStreams {
  openWriter(key: string, contentType: string, organizationId: string): ObjectWriter;
  /** The object's bytes as they arrive, or undefined when it does not exist. */
  openReader(key: string): Promise<AsyncIterable<Buffer> | undefined>;
}
