-- What a version's archive declares in its configuration file (its policies with their levels,
-- sources or queries; Sentinel's other blocks), as storage read it when the archive was uploaded
-- (storage.upload-completed's `declaration`), in the shape of common.v1.ArchiveDeclaration. Runs
-- and the evaluator take it from the applicable-set snapshot instead of parsing the file again.
-- NULL for versions that became ready before it was recorded: their archives are not parsed
-- anywhere else, so checks of such a version are errored until it is uploaded again
-- (docs/adr/0057-archive-declarations-read-once.md).
ALTER TABLE policy_set_versions ADD COLUMN declaration jsonb;
