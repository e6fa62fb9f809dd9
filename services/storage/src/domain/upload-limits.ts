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
}

const MiB = 1024 * 1024;

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = {
  maxBytes: 50 * MiB,
  maxExpandedBytes: 200 * MiB,
  maxEntries: 10_000,
  maxObjectBytes: 100 * MiB,
  uploadTimeoutMs: 15 * 60 * 1000,
};

/** "50 MiB" for messages. */
export function formatBytes(n: number): string {
  if (n >= MiB && n % MiB === 0) return `${n / MiB} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}
