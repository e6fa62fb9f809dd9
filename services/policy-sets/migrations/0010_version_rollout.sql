-- Safe rollout of policy set versions (docs/adr/0058-safe-policy-rollout.md). Additive only.
--   created_by: the user who created the version (null for versions created before this column).
--   auto_promote: whether the version becomes the set's current version when its upload is ready
--     (true, as every version did before); false keeps a ready version staged until promoted.
--   promoted_at: when the version last became current (null: never). A ready version that is not
--     current is `staged` while this is null and `superseded` once it is set.
ALTER TABLE policy_set_versions
  ADD COLUMN created_by text,
  ADD COLUMN auto_promote boolean NOT NULL DEFAULT true,
  ADD COLUMN promoted_at timestamptz;

-- Every version that became ready so far became current at that moment.
UPDATE policy_set_versions SET promoted_at = ready_at WHERE status = 'ready';

-- The history filtered by status, newest first.
CREATE INDEX policy_set_versions_set_status_created
  ON policy_set_versions (policy_set_id, status, created_at DESC, id DESC);
