-- Workspaces and projects admin-orgs reported deleted (tombstones). An attach validated against
-- admin-orgs just before the deletion may commit after the deletion event was applied; it checks
-- these under the same per-id advisory lock the consumer takes, so no set keeps a link to a
-- deleted workspace or project. Rows older than a day are pruned by the consumer: by then no
-- attach that validated before the deletion can still be in flight.
CREATE TABLE deleted_references (
  kind text NOT NULL CHECK (kind IN ('workspace', 'project')),
  id text NOT NULL,
  deleted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, id)
);
CREATE INDEX deleted_references_deleted_at ON deleted_references (deleted_at);
