-- Data is keyed by the organization's immutable id (admin-orgs' external id), not by its name:
-- an organization deleted and re-created under the same name is another organization, and the
-- deletion of the old one (consumed later) removes only rows recorded with the old id (ADR 0019).
-- `organization` keeps the name for the wire. Rows from before this migration have no id; they
-- keep the name semantics (see `organization_id IS NULL` below) until their organization goes.
ALTER TABLE policies ADD COLUMN organization_id text;
ALTER TABLE policy_sets ADD COLUMN organization_id text;
ALTER TABLE policy_set_versions ADD COLUMN organization_id text;

-- Names are unique per organization id; rows without an id stay unique per name among themselves.
ALTER TABLE policies DROP CONSTRAINT policies_organization_name;
CREATE UNIQUE INDEX policies_organization_id_name ON policies (organization_id, name)
  WHERE organization_id IS NOT NULL;
CREATE UNIQUE INDEX policies_unkeyed_organization_name ON policies (organization, name)
  WHERE organization_id IS NULL;
ALTER TABLE policy_sets DROP CONSTRAINT policy_sets_organization_name;
CREATE UNIQUE INDEX policy_sets_organization_id_name ON policy_sets (organization_id, name)
  WHERE organization_id IS NOT NULL;
CREATE UNIQUE INDEX policy_sets_unkeyed_organization_name ON policy_sets (organization, name)
  WHERE organization_id IS NULL;

-- Listing, the free-tier count, the applicable global sets and the organization's deletion.
CREATE INDEX policies_organization_id_created ON policies (organization_id, created_at, id);
CREATE INDEX policy_sets_organization_id_created ON policy_sets (organization_id, created_at, id);
CREATE INDEX policy_sets_organization_id_global ON policy_sets (organization_id) WHERE global;
