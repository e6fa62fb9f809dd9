-- Every run has one plan: the `terraform show -json` document once it arrived (stored at
-- runs.plan_object_key) and the resource counts taken from it.
CREATE TABLE plans (
  id text PRIMARY KEY,
  run_id text NOT NULL UNIQUE REFERENCES runs (id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'finished', 'errored', 'canceled')),
  status_timestamps jsonb NOT NULL DEFAULT '{}',
  has_changes boolean NOT NULL DEFAULT false,
  resource_additions integer NOT NULL DEFAULT 0,
  resource_changes integer NOT NULL DEFAULT 0,
  resource_destructions integer NOT NULL DEFAULT 0,
  resource_imports integer NOT NULL DEFAULT 0,
  size_bytes bigint,
  -- An upload of the plan JSON in progress holds the plan (one writer of the storage key at a
  -- time) until it finishes or this time passes.
  upload_attempt text,
  upload_claimed_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Plans of runs created before this migration: ids as the application makes them (`plan-` and
-- 16 random base62 characters; the subquery refers to the row so it runs once per run). Plans
-- already reported keep zero counts: their JSON is not read back here.
INSERT INTO plans (id, run_id, status, status_timestamps, created_at, updated_at)
SELECT
  'plan-' || (
    SELECT string_agg(substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
                             1 + floor(random() * 62)::int, 1), '')
    FROM generate_series(1, 16 + 0 * length(r.id))
  ),
  r.id,
  CASE
    WHEN r.plan_object_key IS NOT NULL THEN 'finished'
    WHEN r.status = 'canceled' THEN 'canceled'
    WHEN r.status IN ('errored', 'policy_soft_failed') THEN 'errored'
    ELSE 'pending'
  END,
  jsonb_build_object('pending-at', to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
  r.created_at,
  now()
FROM runs r;
