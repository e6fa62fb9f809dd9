-- A pending configuration version's upload URL is no longer stored: runs keeps storage's upload
-- session id (not a secret) and mints a fresh sealed token from it on every read
-- (docs/adr/0059-sealed-upload-urls.md).
ALTER TABLE configuration_versions ADD COLUMN upload_session_id text;

-- The URLs stored so far are wiped, not carried over. Versions still pending from before answer
-- `upload-url: null` from now on; a client that already holds such a URL can still use it until it
-- expires (at most an hour: storage keeps finding those sessions by the token's SHA-256).
UPDATE configuration_versions SET upload_token = NULL WHERE upload_token IS NOT NULL;
ALTER TABLE configuration_versions DROP COLUMN upload_token;
