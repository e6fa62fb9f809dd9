-- Projects excluded from a set (upstream's `project-exclusions`): the set does not apply to their
-- workspaces, even when it is global or attached to them, as a workspace exclusion does for one
-- workspace. Projects live in admin-orgs: referenced by id, dropped on their deletion.
CREATE TABLE policy_set_project_exclusions (
  policy_set_id text NOT NULL REFERENCES policy_sets (id) ON DELETE CASCADE,
  project_id text NOT NULL,
  position bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (policy_set_id, project_id)
);
CREATE INDEX policy_set_project_exclusions_project ON policy_set_project_exclusions (project_id);
