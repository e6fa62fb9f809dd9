-- Evaluators' claims rotate across organizations (docs/adr/0052-fair-claims-across-organizations.md):
-- each check records its run's organization (the immutable id, or the name for runs from before
-- ids), indexed for the claim's per-organization lookups, and claim_turns records when each
-- organization last had a check claimed.
ALTER TABLE policy_checks ADD COLUMN organization_key text;
UPDATE policy_checks c SET organization_key = COALESCE(r.organization_id, r.organization)
  FROM runs r WHERE r.id = c.run_id;
ALTER TABLE policy_checks ALTER COLUMN organization_key SET NOT NULL;
-- The organizations with queued checks (a skip scan), and each one's oldest queued check.
CREATE INDEX policy_checks_queued_by_organization ON policy_checks (organization_key, created_at, id)
  WHERE status = 'queued';
-- The leases an organization holds right now.
CREATE INDEX policy_checks_leased_by_organization ON policy_checks (organization_key, lease_expires_at)
  WHERE status = 'queued';

CREATE TABLE claim_turns (
  organization_key text PRIMARY KEY,
  last_claimed_at timestamptz NOT NULL
);
