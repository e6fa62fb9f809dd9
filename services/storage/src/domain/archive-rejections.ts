/**
 * Why an uploaded archive was refused. The code travels in storage.upload-completed and becomes
 * the version's `error`; the message becomes its `error-message` and the PUT's error detail.
 * Every code is listed in docs/errors.md.
 */
export type ArchiveRejectionCode =
  | 'STORAGE_ARCHIVE_TOO_LARGE'
  | 'STORAGE_ARCHIVE_NOT_GZIP'
  | 'STORAGE_ARCHIVE_CORRUPT_GZIP'
  | 'STORAGE_ARCHIVE_CORRUPT_TAR'
  | 'STORAGE_ARCHIVE_TOO_MANY_ENTRIES'
  | 'STORAGE_ARCHIVE_EXPANDED_TOO_LARGE'
  | 'STORAGE_ARCHIVE_ABSOLUTE_PATH'
  | 'STORAGE_ARCHIVE_PATH_TRAVERSAL'
  | 'STORAGE_ARCHIVE_INVALID_PATH'
  | 'STORAGE_ARCHIVE_LINK_ESCAPE'
  | 'STORAGE_ARCHIVE_SPECIAL_FILE'
  | 'STORAGE_ARCHIVE_UNSUPPORTED_ENTRY'
  | 'STORAGE_ARCHIVE_EMPTY'
  | 'STORAGE_ARCHIVE_GLOBAL_HEADER'
  | 'STORAGE_ARCHIVE_AMBIGUOUS_HEADER'
  | 'STORAGE_ARCHIVE_CONFIG_MISSING'
  | 'STORAGE_ARCHIVE_CONFIG_INVALID'
  | 'STORAGE_ARCHIVE_SOURCE_MISSING';

export interface ArchiveRejection {
  code: ArchiveRejectionCode;
  message: string;
}

export const rejection = (code: ArchiveRejectionCode, message: string): ArchiveRejection => ({
  code,
  message,
});

export const isRejection = (v: unknown): v is ArchiveRejection =>
  typeof v === 'object' && v !== null && 'code' in v && 'message' in v;

/** A path from the archive, quoted and shortened so a hostile name cannot flood or forge a message. */
export function quotePath(path: string): string {
  const short = path.length > 200 ? `${path.slice(0, 200)}…` : path;
  return JSON.stringify(short);
}
