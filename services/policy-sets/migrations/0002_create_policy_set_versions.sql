-- Versions of API-versioned policy sets (tar.gz uploads through storage). Deleting a set deletes
-- its versions; storage removes the archives when it consumes policy-sets.policy-set-deleted.
CREATE TABLE policy_set_versions (
  id text PRIMARY KEY,
  policy_set_id text NOT NULL REFERENCES policy_sets (id) ON DELETE CASCADE,
  organization text NOT NULL,
  source text NOT NULL DEFAULT 'tfe-api',
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ready', 'errored')),
  pending_at timestamptz NOT NULL,
  ready_at timestamptz,
  errored_at timestamptz,
  error text,
  error_message text,
  -- The upload capability, kept so a later show can hand out the same URL (clients upload through
  -- the show response's link); cleared as soon as the upload's outcome is known. Storage holds
  -- only its hash and refuses it after upload_expires_at (created_at + 1 hour) or once used.
  upload_token text,
  upload_expires_at timestamptz NOT NULL,
  -- The stored archive of a ready version.
  object_key text,
  size_bytes bigint,
  sha256 text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
-- A set's versions, newest first (list; newest-version bookkeeping).
CREATE INDEX policy_set_versions_set_created ON policy_set_versions (policy_set_id, created_at DESC, id DESC);
