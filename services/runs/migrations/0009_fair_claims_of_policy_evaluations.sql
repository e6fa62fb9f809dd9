-- Policy evaluations join the checks' rotation across organizations
-- (docs/adr/0052-fair-claims-across-organizations.md): each evaluation records its run's
-- organization like a check does, and claims order both kinds of work in one queue.
ALTER TABLE policy_evaluations ADD COLUMN organization_key text;
UPDATE policy_evaluations e SET organization_key = COALESCE(r.organization_id, r.organization)
  FROM runs r WHERE r.id = e.run_id;
ALTER TABLE policy_evaluations ALTER COLUMN organization_key SET NOT NULL;
-- The organizations with open evaluations (a skip scan), and each one's oldest open evaluation.
CREATE INDEX policy_evaluations_open_by_organization ON policy_evaluations (organization_key, created_at, id)
  WHERE status IN ('queued', 'running');
-- The leases an organization holds on evaluations right now.
CREATE INDEX policy_evaluations_leased_by_organization ON policy_evaluations (organization_key, lease_expires_at)
  WHERE status IN ('queued', 'running');
