import type { OrganizationState } from './ports.js';
import type { Kind } from './vocabulary.js';

/**
 * Policy set versions (ADR 0003): rules of creation, the upload window, and how an upload's
 * outcome moves a version out of `pending`. Plain TypeScript; the repository and RPC layers
 * apply what these functions decide.
 */

export type VersionStatus = 'pending' | 'ready' | 'errored';

export const VERSION_STATUSES: readonly VersionStatus[] = ['pending', 'ready', 'errored'];

/**
 * A ready version's place in its set's rollout: `current` (evaluations started now use it),
 * `staged` (ready, never current: created with auto-promote off and not promoted yet) or
 * `superseded` (current once, another one is now). Pending and errored versions have none.
 */
export type VersionRole = 'current' | 'staged' | 'superseded';

/** `source` of versions created through the API (upstream's value; clients check it). */
export const API_VERSION_SOURCE = 'tfe-api';

/** The upload URL is valid for one hour after the version's `created-at`. */
export const UPLOAD_WINDOW_MS = 60 * 60 * 1000;

/** What storage's upload session is bound to (echoed back in storage.upload-completed). */
export const UPLOAD_OWNER_KIND = 'policy-set-version';

export const VERSIONS_NOT_SUPPORTED_MESSAGE = 'The policy set does not support uploading versions';

export interface VersionedSetFacts {
  hasVcsRepo: boolean;
  hasPolicies: boolean;
}

/**
 * Versions can be uploaded to a set that gets its policies neither from a VCS repository nor from
 * individual policy relationships (upstream's behaviour: a fresh set qualifies).
 */
export const canTakeUploadedVersions = (set: VersionedSetFacts): boolean =>
  !set.hasVcsRepo && !set.hasPolicies;

/** When a version's upload URL stops working (the window is a setting only so tests can shorten it). */
export const uploadExpiry = (createdAt: Date, windowMs = UPLOAD_WINDOW_MS): Date =>
  new Date(createdAt.getTime() + windowMs);

export type ArchiveLayout = 'opa' | 'sentinel';

/**
 * The archive layout storage must check for a version of a set of this kind: a Sentinel set
 * (`kind_a`) needs `sentinel.hcl`, an OPA set (`kind_b`) `policies.hcl`, in the set's policies
 * path when it has one. A version whose archive does not conform ends `errored`.
 */
export const archiveLayoutFor = (set: {
  kind: Kind;
  policiesPath: string | null;
}): { layout: ArchiveLayout; layoutRoot: string } => ({
  layout: set.kind === 'kind_b' ? 'opa' : 'sentinel',
  layoutRoot: set.policiesPath ?? '',
});

export interface VersionState {
  status: VersionStatus;
  uploadSessionId: string | null;
  uploadExpiresAt: string;
}

/** The upload URL is shown while it can still be used: pending, not yet used, not expired. */
export const isUploadUsable = (v: VersionState, now: Date): boolean =>
  v.status === 'pending' && !!v.uploadSessionId && Date.parse(v.uploadExpiresAt) > now.getTime();

/** A policy block of the archive's configuration file (common.v1.DeclaredPolicy). */
export interface DeclaredPolicy {
  name: string;
  enforcementLevel: string;
  source: string;
  query: string;
  description: string;
}

/**
 * What a version's archive declares, as storage read it at upload (common.v1.ArchiveDeclaration):
 * kept with the version and handed to runs in the applicable-set snapshot, so nothing parses the
 * configuration file again. Versions uploaded before it was recorded have none.
 */
export interface VersionDeclaration {
  root: string;
  configPath: string;
  policies: DeclaredPolicy[];
  /** Sentinel's other blocks as JSON ('' for OPA). */
  sentinelBlocksJson: string;
}

export type UploadOutcome =
  | {
      ok: true;
      objectKey: string;
      sizeBytes: number;
      sha256: string;
      /** Undefined when storage's event has none (a release before it, or no layout). */
      declaration?: VersionDeclaration | undefined;
    }
  | { ok: false; errorCode: string; errorMessage: string };

export type Settlement =
  | {
      status: 'ready';
      objectKey: string;
      sizeBytes: number;
      sha256: string;
      declaration: VersionDeclaration | undefined;
    }
  | { status: 'errored'; error: string; errorMessage: string };

/**
 * How an upload outcome settles a version: ready (it becomes the set's current version) or
 * errored. Undefined when the version is no longer pending: an outcome applies at most once.
 */
export function settle(
  version: Pick<VersionState, 'status'>,
  outcome: UploadOutcome,
): Settlement | undefined {
  if (version.status !== 'pending') return undefined;
  if (outcome.ok) {
    return {
      status: 'ready',
      objectKey: outcome.objectKey,
      sizeBytes: outcome.sizeBytes,
      sha256: outcome.sha256,
      declaration: outcome.declaration,
    };
  }
  return {
    status: 'errored',
    error: outcome.errorCode || 'UPLOAD_FAILED',
    errorMessage: outcome.errorMessage || 'the upload could not be processed',
  };
}

/**
 * Whether the organization `state` describes may take an upload made for the organization with id
 * `id`: a different organization holding the name now means that one is gone (ADR 0019).
 */
export function uploadableStatus(
  state: OrganizationState,
  id: string | null,
): 'active' | 'disabled' | 'missing' | 'unknown' {
  if (typeof state === 'string') return state;
  if (id && state.id && state.id !== id) return 'missing';
  return state.isDisabled ? 'disabled' : 'active';
}
