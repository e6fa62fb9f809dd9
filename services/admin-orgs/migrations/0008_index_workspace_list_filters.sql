-- The workspace list's name searches (`search[name]`, a substring; `search[wildcard-name]`, a
-- prefix, suffix or exact pattern) are case-insensitive LIKE matches: a trigram index serves both.
CREATE INDEX workspaces_name_trgm ON workspaces USING gin (name public.gin_trgm_ops);
-- `filter[project][id]` lists a project's workspaces in creation order; the index also serves
-- every lookup the single-column one served (a project's deletion), which it replaces.
CREATE INDEX workspaces_project_created ON workspaces (project_id, created_at, id);
DROP INDEX workspaces_project;
-- The default order of an organization's workspace list (`sort=name` walks the unique
-- `(organization, name)` index).
CREATE INDEX workspaces_organization_created ON workspaces (organization, created_at, id);
