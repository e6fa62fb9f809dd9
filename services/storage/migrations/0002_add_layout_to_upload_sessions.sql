-- The layout the owner requires of the uploaded archive ('' = any; 'sentinel'; 'opa') and the
-- directory inside the archive that holds it ('' = the root). Checked while the archive streams in.
ALTER TABLE upload_sessions
  ADD COLUMN layout text NOT NULL DEFAULT '' CHECK (layout IN ('', 'sentinel', 'opa')),
  ADD COLUMN layout_root text NOT NULL DEFAULT '';
