-- The organization-wide run list (newest first, filtered) walks this index; it also serves every
-- lookup the single-column index served, which it replaces.
CREATE INDEX runs_organization_created ON runs (organization, created_at DESC, id DESC);
DROP INDEX runs_organization;
