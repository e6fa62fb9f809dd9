-- Status timestamps are keyed by the status word the row stores (`policy_checked`), no longer by
-- the key the API serves (`policy-checked-at`): the gateway builds those. A configuration
-- version's `finished-at` is dropped; it is the time the version became uploaded or errored.
-- Keys without the `-at` suffix are already status words and stay as they are.
CREATE FUNCTION status_keyed(timestamps jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT COALESCE(
    jsonb_object_agg(CASE WHEN key LIKE '%-at' THEN replace(left(key, -3), '-', '_') ELSE key END, value),
    '{}'::jsonb)
  FROM jsonb_each(timestamps)
$$;

UPDATE runs SET status_timestamps = status_keyed(status_timestamps);
UPDATE plans SET status_timestamps = status_keyed(status_timestamps);
UPDATE policy_checks SET status_timestamps = status_keyed(status_timestamps);
UPDATE configuration_versions SET status_timestamps = status_keyed(status_timestamps - 'finished-at');

DROP FUNCTION status_keyed(jsonb);
