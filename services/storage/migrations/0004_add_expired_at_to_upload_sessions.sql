-- A session whose URL expired without an upload is settled by the upload sweeper: expired_at is
-- set and storage.upload-completed (failed, STORAGE_UPLOAD_EXPIRED) is written in the same
-- transaction, so the owner's version leaves `pending`. claimed_until is now a short lease that
-- an upload in progress renews (UPLOAD_LEASE_SECONDS), no longer the whole upload timeout.
ALTER TABLE upload_sessions ADD COLUMN expired_at timestamptz;
-- The sweeper's lookup: sessions neither used nor settled, by expiry.
CREATE INDEX upload_sessions_unsettled_expiry ON upload_sessions (expires_at)
  WHERE used_at IS NULL AND expired_at IS NULL;
