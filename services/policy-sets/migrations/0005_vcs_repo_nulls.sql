-- Typed protos (ADR 0035): an unset VCS repository attribute is stored as null, no longer as "".
UPDATE policy_sets
   SET vcs_repo = (SELECT jsonb_object_agg(key, CASE WHEN value = '""'::jsonb THEN 'null'::jsonb ELSE value END)
                     FROM jsonb_each(vcs_repo))
 WHERE vcs_repo IS NOT NULL;
