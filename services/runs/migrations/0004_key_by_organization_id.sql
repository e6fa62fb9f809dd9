-- Runs and configuration versions record the immutable id of their organization (admin-orgs'
-- external id, taken from the workspace at creation) next to its name. Access needs the caller's
-- organization of that name to be this very organization, and an organization's deletion removes
-- only rows recorded with its id: a new organization that took the name keeps its runs (ADR 0019).
-- Rows from before this migration have no id and keep the name semantics.
ALTER TABLE runs ADD COLUMN organization_id text;
ALTER TABLE configuration_versions ADD COLUMN organization_id text;
CREATE INDEX runs_organization_id ON runs (organization_id);
CREATE INDEX configuration_versions_organization_id ON configuration_versions (organization_id);
