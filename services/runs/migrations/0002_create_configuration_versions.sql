-- Configuration versions of workspaces: a tar.gz uploaded through a storage upload session (owner
-- kind "configuration-version"), from which runs are created. `organization` is copied from
-- admin-orgs at creation, like runs.organization.
CREATE TABLE configuration_versions (
  id text PRIMARY KEY,
  organization text NOT NULL,
  workspace_id text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'uploaded', 'errored')),
  status_timestamps jsonb NOT NULL DEFAULT '{}',
  source text NOT NULL DEFAULT 'tfe-api',
  auto_queue_runs boolean NOT NULL DEFAULT true,
  speculative boolean NOT NULL DEFAULT false,
  provisional boolean NOT NULL DEFAULT false,
  error text,
  error_message text,
  -- The upload capability, kept so a later show can hand out the same URL; cleared once the
  -- upload's outcome is known. Storage keeps only its hash and refuses it after
  -- upload_expires_at or once used.
  upload_token text,
  upload_expires_at timestamptz NOT NULL,
  -- The stored archive once uploaded.
  object_key text,
  size_bytes bigint,
  sha256 text,
  created_by text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX configuration_versions_workspace ON configuration_versions (workspace_id, created_at DESC, id DESC);
CREATE INDEX configuration_versions_organization ON configuration_versions (organization);

ALTER TABLE runs
  ADD COLUMN configuration_version_id text REFERENCES configuration_versions (id) ON DELETE SET NULL;
CREATE INDEX runs_configuration_version ON runs (configuration_version_id) WHERE configuration_version_id IS NOT NULL;
