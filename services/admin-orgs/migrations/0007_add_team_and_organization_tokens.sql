-- Tokens that belong to a team or to an organization instead of a user (one of the three, and at
-- most one live token per team and per organization: a new one replaces the old in one
-- transaction). They go with their team or organization (foreign-key cascades). created_by: the
-- user who made the token (for user tokens, the user).
ALTER TABLE authentication_tokens
  ALTER COLUMN user_id DROP NOT NULL,
  ADD COLUMN team_id text REFERENCES teams (id) ON DELETE CASCADE,
  ADD COLUMN organization_id text REFERENCES organizations (external_id) ON DELETE CASCADE,
  ADD COLUMN created_by text,
  ADD CONSTRAINT authentication_tokens_one_owner CHECK (num_nonnulls(user_id, team_id, organization_id) = 1);

-- The team's and the organization's token, looked up and replaced by owner.
CREATE UNIQUE INDEX authentication_tokens_team ON authentication_tokens (team_id) WHERE team_id IS NOT NULL;
CREATE UNIQUE INDEX authentication_tokens_organization ON authentication_tokens (organization_id)
  WHERE organization_id IS NOT NULL;
