-- Policy set parameters (upstream `vars` of category `policy-set`): handed to the set's engine.
-- A sensitive value is kept only sealed (AES-256-GCM, docs/security.md): `value` is null then and
-- `sealed_value` holds `<key id>:<base64url of iv | tag | ciphertext>`.
CREATE TABLE policy_set_parameters (
  id text PRIMARY KEY,
  policy_set_id text NOT NULL REFERENCES policy_sets (id) ON DELETE CASCADE,
  key text NOT NULL,
  value text,
  sealed_value text,
  sensitive boolean NOT NULL DEFAULT false,
  category text NOT NULL DEFAULT 'policy-set' CHECK (category = 'policy-set'),
  created_at timestamptz NOT NULL DEFAULT now(),
  position bigint GENERATED ALWAYS AS IDENTITY,
  CONSTRAINT policy_set_parameters_set_key UNIQUE (policy_set_id, key),
  CONSTRAINT policy_set_parameters_sealed_when_sensitive CHECK (
    (sensitive AND value IS NULL AND sealed_value IS NOT NULL)
    OR (NOT sensitive AND value IS NOT NULL AND sealed_value IS NULL))
);
-- Listing in creation order, and the applicable sets' parameters in one statement.
CREATE INDEX policy_set_parameters_set_position ON policy_set_parameters (policy_set_id, position);
-- Re-sealing at start with the current key finds rows sealed with an older one.
CREATE INDEX policy_set_parameters_sealed ON policy_set_parameters (id) WHERE sealed_value IS NOT NULL;
