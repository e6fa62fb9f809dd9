-- Single-use upload capabilities. Only the SHA-256 of the token is kept: a database dump does not
-- give anyone an upload URL.
CREATE TABLE upload_sessions (
  id text PRIMARY KEY,
  token_sha256 text NOT NULL UNIQUE,
  organization text NOT NULL,
  owner_kind text NOT NULL,
  owner_id text NOT NULL,
  owner_parent_id text NOT NULL DEFAULT '',
  object_key text NOT NULL,
  expires_at timestamptz NOT NULL,
  -- An upload in progress holds the session (claimed_by = its attempt id) until it finishes or
  -- claimed_until passes, so two concurrent PUTs to one URL cannot both store an archive.
  claimed_by text,
  claimed_until timestamptz,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- Deletions of an organization or of a policy set revoke their sessions.
CREATE INDEX upload_sessions_owner_parent ON upload_sessions (organization, owner_parent_id);

-- Metadata of stored objects; the bytes live in the object store under the same key.
CREATE TABLE objects (
  key text PRIMARY KEY,
  organization text NOT NULL,
  size_bytes bigint NOT NULL,
  sha256 text NOT NULL,
  content_type text NOT NULL DEFAULT 'application/octet-stream',
  -- For validated archives: [{path, sizeBytes, sha256}, …].
  manifest jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Deletion by key prefix (LIKE 'acme/policy-sets/polset-…/%').
CREATE INDEX objects_key_prefix ON objects (key text_pattern_ops);
