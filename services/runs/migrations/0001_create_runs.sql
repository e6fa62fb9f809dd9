-- Runs of workspaces. `organization` is copied from admin-orgs at creation so authorization and
-- organization-wide deletion need no call back there.
CREATE TABLE runs (
  id text PRIMARY KEY,
  organization text NOT NULL,
  workspace_id text NOT NULL,
  message text NOT NULL DEFAULT '',
  status text NOT NULL,
  status_timestamps jsonb NOT NULL DEFAULT '{}',
  plan_only boolean NOT NULL DEFAULT false,
  -- Storage key of the plan JSON once the executor reported the plan.
  plan_object_key text,
  created_by text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX runs_workspace ON runs (workspace_id, created_at DESC, id DESC);
CREATE INDEX runs_organization ON runs (organization);

CREATE TABLE run_events (
  id text PRIMARY KEY,
  run_id text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  action text NOT NULL,
  description text NOT NULL DEFAULT '',
  actor_user_id text NOT NULL DEFAULT '',
  comment_id text,
  policy_check_id text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX run_events_run ON run_events (run_id, created_at, id);

CREATE TABLE comments (
  id text PRIMARY KEY,
  run_id text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  body text NOT NULL,
  run_event_id text NOT NULL,
  author_user_id text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX comments_run ON comments (run_id, created_at, id);

CREATE TABLE policy_checks (
  id text PRIMARY KEY,
  run_id text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  scope text NOT NULL DEFAULT 'organization',
  status text NOT NULL,
  status_timestamps jsonb NOT NULL DEFAULT '{}',
  -- The applicable policy sets (with policies, levels and code) when the plan finished: the
  -- evaluator's input, so the check evaluates exactly what applied then.
  policy_sets jsonb NOT NULL,
  -- Aggregate counts + engine details once completed; null before.
  result jsonb,
  -- Per-policy outcomes as reported.
  outcomes jsonb,
  output text,
  error_message text,
  override_comment text,
  overridden_by text,
  lease_owner text,
  lease_token text,
  lease_expires_at timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX policy_checks_run ON policy_checks (run_id, created_at, id);
-- Evaluators claim the oldest queued check.
CREATE INDEX policy_checks_queued ON policy_checks (created_at, id) WHERE status = 'queued';

-- Stored objects to delete once their runs are gone; a sweeper calls storage and retries, so a
-- deletion event never waits on (or fails because of) the storage service.
CREATE TABLE object_deletions (
  prefix text PRIMARY KEY,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
