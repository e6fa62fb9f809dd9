/**
 * Configuration versions (upstream's API-driven workflow): created `pending` with a single-use
 * upload URL; the upload's outcome (storage.upload-completed) makes them `uploaded` or `errored`.
 * Plain rules; the workflows and repositories apply them.
 */
export const CV_STATUS = {
  pending: 'pending',
  uploaded: 'uploaded',
  errored: 'errored',
} as const;

/** `source` of versions created through the API (upstream's value). */
export const CV_SOURCE = 'tfe-api';

/** What storage's upload session is bound to (echoed back in storage.upload-completed). */
export const CV_UPLOAD_OWNER_KIND = 'configuration-version';

/** The upload URL is valid for one hour after the version's creation, like policy set versions. */
export const CV_UPLOAD_WINDOW_MS = 60 * 60 * 1000;

export const cvUploadExpiry = (createdAt: Date): Date => new Date(createdAt.getTime() + CV_UPLOAD_WINDOW_MS);

/** The upload URL is shown while it can still be used: pending, not yet used, not expired. */
export const isCvUploadUsable = (
  v: { status: string; upload_session_id: string | null; upload_expires_at: string },
  now: Date,
): boolean =>
  v.status === CV_STATUS.pending && !!v.upload_session_id && Date.parse(v.upload_expires_at) > now.getTime();

/** Message of a run queued by an upload (auto-queue-runs). */
export const autoQueuedRunMessage = (cvId: string): string =>
  `Queued by the upload of configuration version ${cvId}`;

/** Upstream's detail for a run that cannot use the configuration version it names. */
export const INVALID_RUN_PARAMETERS = 'invalid run parameters';
