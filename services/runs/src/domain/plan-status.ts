import { MAX_PLAN_BYTES } from './ports.js';

/**
 * Plan statuses (a subset of upstream's): a plan waits in `pending` for its JSON document; it is
 * `finished` once the document arrived (over HTTP or from an executor); a run that errors or is
 * canceled before that takes its plan to `errored` / `canceled`.
 */
export const PLAN_STATUS = {
  pending: 'pending',
  finished: 'finished',
  errored: 'errored',
  canceled: 'canceled',
} as const;
export type PlanStatus = (typeof PLAN_STATUS)[keyof typeof PLAN_STATUS];

/** One upload of a plan's JSON at a time; a writer that vanished frees the plan after this. */
export const PLAN_UPLOAD_HOLD_MS = 15 * 60 * 1000;

/**
 * Default of PLAN_MAX_BYTES (HTTP uploads): the executor stream's bound, storage's default
 * OBJECT_MAX_BYTES (100 MiB).
 */
export const DEFAULT_PLAN_MAX_BYTES = MAX_PLAN_BYTES;
