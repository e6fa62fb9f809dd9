-- Whether a run plans the destruction of everything (upstream's `is-destroy`): policies read it
-- (OPA's input.run.is_destroy, Sentinel's tfrun.is_destroy). Runs from before it was recorded
-- could not be created as destroy runs.
ALTER TABLE runs ADD COLUMN is_destroy boolean NOT NULL DEFAULT false;
