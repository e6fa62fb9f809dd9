-- Upload sessions and the archives they store record the immutable id of their organization
-- (admin-orgs' external id). An organization's deletion revokes and removes exactly what was
-- recorded with its id, never what a new organization of the same name owns (ADR 0019).
-- NULL: recorded before ids existed (deleted by name with the organization); '': an object whose
-- writer deletes it itself (runs' plan files), which no organization deletion reaches.
ALTER TABLE upload_sessions ADD COLUMN organization_id text;
ALTER TABLE objects ADD COLUMN organization_id text;
CREATE INDEX upload_sessions_organization_id ON upload_sessions (organization_id);
CREATE INDEX objects_organization_id ON objects (organization_id);
