import type { ArchiveDeclaration } from './archive-layouts.js';
import type { ArchiveRejection } from './archive-rejections.js';

/** One regular file of an accepted archive, as the manifest lists it. */
export interface ManifestEntry {
  path: string;
  sizeBytes: number;
  sha256: string;
}

/** How an upload session ended: its archive accepted (with the manifest) or rejected, or expired unused. */
export type UploadOutcome =
  | {
      ok: true;
      sizeBytes: number;
      sha256: string;
      files: ManifestEntry[];
      /** What the required layout's configuration file declares (undefined: no layout). */
      declaration?: ArchiveDeclaration | undefined;
    }
  | {
      ok: false;
      sizeBytes: number;
      rejection: ArchiveRejection | { code: 'STORAGE_UPLOAD_EXPIRED'; message: string };
    };
