-- Policies, policy sets and the sets' relationships. Workspaces and projects live in admin-orgs:
-- they are referenced by id only (no foreign key) and dropped from here when admin-orgs reports
-- their deletion. Version ids are maintained by the versions code (0002); no foreign key either.

CREATE TABLE policies (
  id text PRIMARY KEY,
  organization text NOT NULL,
  name text NOT NULL,
  description text,
  kind text NOT NULL DEFAULT 'kind_a' CHECK (kind IN ('kind_a', 'kind_b')),
  query text,
  enforcement_level text NOT NULL CHECK (enforcement_level IN ('advisory', 'soft-mandatory', 'hard-mandatory')),
  enforce_path text,
  code bytea,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT policies_organization_name UNIQUE (organization, name)
);
CREATE INDEX policies_organization_created ON policies (organization, created_at, id);

CREATE TABLE policy_sets (
  id text PRIMARY KEY,
  organization text NOT NULL,
  name text NOT NULL,
  description text,
  global boolean NOT NULL DEFAULT false,
  kind text NOT NULL DEFAULT 'kind_a' CHECK (kind IN ('kind_a', 'kind_b')),
  overridable boolean NOT NULL DEFAULT false,
  agent_enabled boolean NOT NULL DEFAULT false,
  policy_tool_version text NOT NULL DEFAULT 'latest',
  policies_path text,
  -- {identifier, branch, oauth_token_id, github_app_installation_id, ingress_submodules}
  vcs_repo jsonb,
  -- API-versioned (set by the versions code); VCS-backed sets count as versioned too.
  versioned boolean NOT NULL DEFAULT false,
  current_version_id text NULL,
  newest_version_id text NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT policy_sets_organization_name UNIQUE (organization, name)
);
CREATE INDEX policy_sets_organization_created ON policy_sets (organization, created_at, id);
-- Applicable sets of a workspace start from the organization's global sets.
CREATE INDEX policy_sets_organization_global ON policy_sets (organization) WHERE global;

-- `position` keeps linkage in the order members were added.
CREATE TABLE policy_set_policies (
  policy_set_id text NOT NULL REFERENCES policy_sets (id) ON DELETE CASCADE,
  policy_id text NOT NULL REFERENCES policies (id) ON DELETE CASCADE,
  position bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (policy_set_id, policy_id)
);
CREATE INDEX policy_set_policies_policy ON policy_set_policies (policy_id);

CREATE TABLE policy_set_workspaces (
  policy_set_id text NOT NULL REFERENCES policy_sets (id) ON DELETE CASCADE,
  workspace_id text NOT NULL,
  position bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (policy_set_id, workspace_id)
);
CREATE INDEX policy_set_workspaces_workspace ON policy_set_workspaces (workspace_id);

CREATE TABLE policy_set_projects (
  policy_set_id text NOT NULL REFERENCES policy_sets (id) ON DELETE CASCADE,
  project_id text NOT NULL,
  position bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (policy_set_id, project_id)
);
CREATE INDEX policy_set_projects_project ON policy_set_projects (project_id);

CREATE TABLE policy_set_workspace_exclusions (
  policy_set_id text NOT NULL REFERENCES policy_sets (id) ON DELETE CASCADE,
  workspace_id text NOT NULL,
  position bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (policy_set_id, workspace_id)
);
CREATE INDEX policy_set_workspace_exclusions_workspace ON policy_set_workspace_exclusions (workspace_id);
