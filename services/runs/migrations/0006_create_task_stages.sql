-- Task stages of runs, their policy evaluations (one per policy kind) and the outcome of each
-- policy set in an evaluation: how kind_b sets and agent-enabled kind_a sets are enforced
-- (docs/adr/0044-task-stages-and-policy-evaluations.md).
CREATE TABLE task_stages (
  id text PRIMARY KEY,
  run_id text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  stage text NOT NULL DEFAULT 'post_plan',
  status text NOT NULL,
  status_timestamps jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX task_stages_run ON task_stages (run_id, created_at, id);

CREATE TABLE policy_evaluations (
  id text PRIMARY KEY,
  task_stage_id text NOT NULL REFERENCES task_stages (id) ON DELETE CASCADE,
  run_id text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  policy_kind text NOT NULL,
  status text NOT NULL,
  status_timestamps jsonb NOT NULL DEFAULT '{}',
  -- The applicable sets of this kind when the plan finished (same shape as policy_checks'):
  -- the evaluator's input, so later edits do not change what is evaluated.
  policy_sets jsonb NOT NULL,
  -- What the engine may show of the workspace (input.run.workspace.name).
  workspace_name text NOT NULL DEFAULT '',
  result_count jsonb,
  -- A failed evaluation whose every mandatory failure is in a set allowing overrides.
  overridable boolean NOT NULL DEFAULT false,
  error_message text,
  attempts integer NOT NULL DEFAULT 0,
  lease_owner text,
  lease_token text,
  lease_expires_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX policy_evaluations_stage ON policy_evaluations (task_stage_id, created_at, id);
CREATE INDEX policy_evaluations_run ON policy_evaluations (run_id);
-- Evaluators claim the oldest open evaluation.
CREATE INDEX policy_evaluations_open ON policy_evaluations (created_at, id) WHERE status IN ('queued', 'running');

CREATE TABLE policy_set_outcomes (
  id text PRIMARY KEY,
  policy_evaluation_id text NOT NULL REFERENCES policy_evaluations (id) ON DELETE CASCADE,
  position integer NOT NULL,
  policy_set_id text NOT NULL,
  policy_set_name text NOT NULL,
  policy_set_description text,
  overridable boolean,
  error text,
  -- [{policy_name, enforcement_level, query, status, description, output: [...]}]
  outcomes jsonb NOT NULL,
  result_count jsonb NOT NULL
);
CREATE INDEX policy_set_outcomes_evaluation ON policy_set_outcomes (policy_evaluation_id, position);

ALTER TABLE run_events ADD COLUMN task_stage_id text;
