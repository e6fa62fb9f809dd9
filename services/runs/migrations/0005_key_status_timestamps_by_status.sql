-- Status timestamps are keyed by the status word the row stores (`policy_checked`), no longer by
-- the key the API serves (`policy-checked-at`): the gateway builds those. A configuration
-- version's `finished-at` is dropped; it is the time the version became uploaded or errored.
UPDATE runs SET status_timestamps = (
  SELECT COALESCE(jsonb_object_agg(replace(left(key, -3), '-', '_'), value), '{}'::jsonb)
  FROM jsonb_each(status_timestamps) WHERE key LIKE '%-at'
) WHERE EXISTS (SELECT 1 FROM jsonb_object_keys(status_timestamps) k WHERE k LIKE '%-at');

UPDATE plans SET status_timestamps = (
  SELECT COALESCE(jsonb_object_agg(replace(left(key, -3), '-', '_'), value), '{}'::jsonb)
  FROM jsonb_each(status_timestamps) WHERE key LIKE '%-at'
) WHERE EXISTS (SELECT 1 FROM jsonb_object_keys(status_timestamps) k WHERE k LIKE '%-at');

UPDATE policy_checks SET status_timestamps = (
  SELECT COALESCE(jsonb_object_agg(replace(left(key, -3), '-', '_'), value), '{}'::jsonb)
  FROM jsonb_each(status_timestamps) WHERE key LIKE '%-at'
) WHERE EXISTS (SELECT 1 FROM jsonb_object_keys(status_timestamps) k WHERE k LIKE '%-at');

UPDATE configuration_versions SET status_timestamps = (
  SELECT COALESCE(jsonb_object_agg(replace(left(key, -3), '-', '_'), value), '{}'::jsonb)
  FROM jsonb_each(status_timestamps) WHERE key LIKE '%-at' AND key <> 'finished-at'
) WHERE EXISTS (SELECT 1 FROM jsonb_object_keys(status_timestamps) k WHERE k LIKE '%-at');
