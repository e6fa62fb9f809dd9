-- Who opened an upload session and the permission they must still hold when the upload arrives
-- (checked with admin-orgs then): a URL stops working once its creator loses that permission or
-- is deleted. '' / NULL: sessions opened before this was recorded, checked for nothing.
ALTER TABLE upload_sessions
  ADD COLUMN created_by text,
  ADD COLUMN required_permission text NOT NULL DEFAULT '';
