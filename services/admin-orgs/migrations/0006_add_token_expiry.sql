-- A token may be created with an expiry: from then on it no longer authenticates (the
-- authentication query checks it on the row it finds through the unique token_sha256 index, so
-- no index is needed for it). NULL: never expires.
ALTER TABLE authentication_tokens ADD COLUMN expired_at timestamptz;
