-- Levels by kind, as upstream: kind_b (OPA) policies take `advisory` or `mandatory`, kind_a
-- (Sentinel) ones `advisory`, `soft-mandatory` or `hard-mandatory`. kind_b policies stored with a
-- Sentinel level become `mandatory` (both blocked a failing run).
ALTER TABLE policies DROP CONSTRAINT policies_enforcement_level_check;
UPDATE policies SET enforcement_level = 'mandatory'
 WHERE kind = 'kind_b' AND enforcement_level IN ('soft-mandatory', 'hard-mandatory');
ALTER TABLE policies ADD CONSTRAINT policies_enforcement_level_by_kind CHECK (
  (kind = 'kind_a' AND enforcement_level IN ('advisory', 'soft-mandatory', 'hard-mandatory'))
  OR (kind = 'kind_b' AND enforcement_level IN ('advisory', 'mandatory')));

-- Upstream's `updated-at` of a policy is its last code upload (null before the first one).
ALTER TABLE policies ADD COLUMN code_uploaded_at timestamptz;
UPDATE policies SET code_uploaded_at = updated_at WHERE code IS NOT NULL;
