-- The declaration backfill (use-cases/declaration-backfill.ts) looks every minute for ready
-- versions without a recorded declaration. This partial index holds only those, so once they are
-- recorded the lookup reads an empty index instead of every version.
CREATE INDEX policy_set_versions_without_declaration
  ON policy_set_versions (ready_at DESC, id)
  WHERE status = 'ready' AND declaration IS NULL AND object_key IS NOT NULL;
