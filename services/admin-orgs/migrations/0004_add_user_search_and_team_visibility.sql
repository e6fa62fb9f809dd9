-- Admin user search: case-insensitive substring (ILIKE '%…%') on username and email.
CREATE INDEX users_username_trgm ON users USING gin (username public.gin_trgm_ops);
CREATE INDEX users_email_trgm ON users USING gin (email public.gin_trgm_ops);
-- Default list order of the admin users API.
CREATE INDEX users_created_at ON users (created_at, id);
-- Teams of an organization in list order (the unique (organization, name) index serves name lookups).
CREATE INDEX teams_organization_created_at ON teams (organization, created_at, id);

-- Upstream team visibility: `secret` teams (the default) are visible to their members and the
-- organization's owners only; `organization` teams to every member. The owners team is visible.
ALTER TABLE teams ADD COLUMN visibility text NOT NULL DEFAULT 'secret'
  CHECK (visibility IN ('secret', 'organization'));
UPDATE teams SET visibility = 'organization' WHERE name = 'owners';
