-- The audit trail of every service (docs/adr/0051-audit-trail.md). Records of admin-orgs' own acts
-- are written in the act's transaction; other services' arrive as AuditRecorded events, whose id
-- is the record's id (a redelivery inserts nothing). Records outlive the organization they name:
-- only retention (AUDIT_RETENTION_DAYS) removes them.
CREATE TABLE audit_trail (
  id uuid PRIMARY KEY,
  -- Milliseconds, as served, so that `since` set to a served time excludes that record.
  occurred_at timestamptz NOT NULL,
  -- Order among records of the same millisecond: the order they entered the trail.
  seq bigserial NOT NULL,
  organization_id text,
  organization text,
  actor_type text NOT NULL CHECK (actor_type IN ('Client', 'System')),
  actor_id text,
  actor_description text NOT NULL,
  resource_type text NOT NULL,
  resource_id text NOT NULL,
  action text NOT NULL,
  outcome text NOT NULL,
  meta jsonb NOT NULL DEFAULT '{}'
);
-- An organization's trail and the site-admin view, in order from a `since`; retention's scan.
CREATE INDEX audit_trail_organization ON audit_trail (organization_id, occurred_at, seq);
CREATE INDEX audit_trail_occurred_at ON audit_trail (occurred_at, seq);
