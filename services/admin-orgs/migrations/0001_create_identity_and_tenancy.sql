CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

CREATE TABLE users (
  id text PRIMARY KEY,
  username text NOT NULL UNIQUE,
  email text NOT NULL,
  is_site_admin boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE authentication_tokens (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_sha256 text NOT NULL UNIQUE,
  description text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX authentication_tokens_user ON authentication_tokens (user_id);

CREATE TABLE organizations (
  name text PRIMARY KEY,
  external_id text NOT NULL UNIQUE,
  email text NOT NULL,
  is_disabled boolean NOT NULL DEFAULT false,
  access_beta_tools boolean NOT NULL DEFAULT false,
  global_module_sharing boolean NOT NULL DEFAULT false,
  global_provider_sharing boolean NOT NULL DEFAULT false,
  sso_enabled boolean NOT NULL DEFAULT false,
  worker_sudo_enabled boolean NOT NULL DEFAULT false,
  workspace_limit integer,
  apply_timeout text,
  plan_timeout text,
  is_free_tier boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE teams (
  id text PRIMARY KEY,
  organization text NOT NULL REFERENCES organizations (name) ON DELETE CASCADE ON UPDATE CASCADE,
  name text NOT NULL,
  permissions text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization, name)
);

CREATE TABLE team_members (
  team_id text NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  PRIMARY KEY (team_id, user_id)
);
CREATE INDEX team_members_user ON team_members (user_id);

CREATE TABLE projects (
  id text PRIMARY KEY,
  organization text NOT NULL REFERENCES organizations (name) ON DELETE CASCADE ON UPDATE CASCADE,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  is_default boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization, name)
);

CREATE TABLE workspaces (
  id text PRIMARY KEY,
  organization text NOT NULL REFERENCES organizations (name) ON DELETE CASCADE ON UPDATE CASCADE,
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization, name)
);
CREATE INDEX workspaces_project ON workspaces (project_id);
