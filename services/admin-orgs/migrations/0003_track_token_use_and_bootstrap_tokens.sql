-- The bootstrap token is whatever SITE_ADMIN_TOKEN says at start: admin-orgs keeps the configured
-- one and deletes every other bootstrap token, so a rotated or removed value stops working.
ALTER TABLE authentication_tokens
  ADD COLUMN is_bootstrap boolean NOT NULL DEFAULT false,
  -- Touched by authentication at most once a minute (no write per request).
  ADD COLUMN last_used_at timestamptz;

-- Tokens made by earlier versions at start: the bootstrap admin's tokens with the bootstrap description.
UPDATE authentication_tokens t
   SET is_bootstrap = true
  FROM users u
 WHERE u.id = t.user_id AND u.username = 'admin' AND t.description = 'bootstrap site-admin token';

CREATE INDEX authentication_tokens_user_created ON authentication_tokens (user_id, created_at, id);
DROP INDEX authentication_tokens_user;
