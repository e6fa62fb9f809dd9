-- Upload URLs carry a token sealed with a key derived from INTERNAL_SIGNING_KEYS that names the
-- session by id (docs/adr/0059-sealed-upload-urls.md): new sessions keep no token and no hash of
-- one. Sessions opened before keep their token's SHA-256 until they are used or expire.
ALTER TABLE upload_sessions ALTER COLUMN token_sha256 DROP NOT NULL;
