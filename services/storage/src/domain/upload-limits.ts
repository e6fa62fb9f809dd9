/** Bounds on what storage accepts; configured by env (see config.ts and the README). */
export interface UploadLimits {
  /** Compressed size of an uploaded archive. */
  maxBytes: number;
  /** Sum of the sizes of the archive's files once decompressed (decompression bombs). */
  maxExpandedBytes: number;
  /** Entries of any kind (files, directories, links) in one archive. */
  maxEntries: number;
  /** Size of an object stored through PutObject (plan JSON and the like). */
  maxObjectBytes: number;
  /** An upload that has not finished by then is abandoned and its session released. */
  uploadTimeoutMs: number;
  /**
   * How long an upload holds its URL without renewing the hold; a running upload renews it (and
   * touches its staging file) every third of this, so an upload whose process died frees the
   * URL, and its staging file becomes removable, within about this long.
   */
  uploadLeaseMs: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = {
  maxBytes: 50 * MiB,
  maxExpandedBytes: 200 * MiB,
  maxEntries: 10_000,
  maxObjectBytes: 100 * MiB,
  uploadTimeoutMs: 15 * 60 * 1000,
  uploadLeaseMs: 30 * 1000,
};

/** How often a running upload renews its lease and touches its staging file. */
export const leaseRenewalMs = (limits: Pick<UploadLimits, 'uploadLeaseMs'>): number =>
  Math.max(100, Math.floor(limits.uploadLeaseMs / 3));

/** A staging file untouched for this long belongs to a process that died. */
export const staleStagingMs = (limits: Pick<UploadLimits, 'uploadLeaseMs'>): number =>
  2 * limits.uploadLeaseMs;

/** "50 MiB" for messages. */
export function formatBytes(n: number): string {
  if (n >= MiB && n % MiB === 0) return `${n / MiB} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

/** "15 minutes", "90 seconds" for messages. */
export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds % 60 === 0) return `${seconds / 60} minute${seconds === 60 ? '' : 's'}`;
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}
