import { badRequest } from '@policyhub/errors';
import { RUN_STATUS, UPSTREAM_ONLY_RUN_STATUSES } from './run-status.js';

/** Upstream's run list parameters as a caller sent them (empty lists and unset: no filter). */
export interface RunListRequest {
  statuses: string[];
  operations: string[];
  sources: string[];
  user?: string | undefined;
  commit?: string | undefined;
  basic?: string | undefined;
}

/** What a run list keeps; unset members do not filter. */
export interface RunListFilter {
  /** Any of these statuses. */
  statuses?: string[];
  /** Any of these operations (the ones a run here can have; see `RunOperation`). */
  operations?: RunOperation[];
  /** Case-insensitive part of the id or the message. */
  basic?: string;
  /** A filter no run here can satisfy (a VCS user or commit, another source). */
  matchesNothing?: boolean;
}

const STATUSES: ReadonlySet<string> = new Set(Object.values(RUN_STATUS));

/**
 * The operation of a run here, as upstream names it: a plan-only (speculative) run is `plan_only`
 * (a speculative destroy plan too), any other destroy run `destroy`, the rest `plan_and_apply`.
 */
export type RunOperation = 'plan_only' | 'destroy' | 'plan_and_apply';

/** Upstream's operations; runs here never save plans, refresh only or apply empty plans. */
const OPERATIONS: ReadonlyMap<string, RunOperation | undefined> = new Map([
  ['plan_only', 'plan_only'],
  ['plan_and_apply', 'plan_and_apply'],
  ['destroy', 'destroy'],
  ['save_plan', undefined],
  ['refresh_only', undefined],
  ['empty_apply', undefined],
]);

/** Every run here comes from the API. */
const SOURCE = 'tfe-api';

const invalid = (parameter: string, word: string, allowed: Iterable<string>) =>
  badRequest(
    'RUNS_INVALID_RUN_FILTER',
    `${parameter}: "${word}" is not one of ${[...allowed].join(', ')}`,
    parameter,
  );

/**
 * Upstream's run list parameters as a repository filter. A word upstream knows but this system
 * never records (an `applied` run, a `refresh_only` operation, a VCS commit) matches nothing; a word
 * upstream does not know is a 400 naming the parameter.
 */
export function runListFilter(f: RunListRequest | null | undefined): RunListFilter {
  const filter: RunListFilter = {};
  if (!f) return filter;
  if (f.statuses.length > 0) {
    for (const status of f.statuses) {
      if (!STATUSES.has(status) && !UPSTREAM_ONLY_RUN_STATUSES.has(status)) {
        throw invalid('filter[status]', status, [...STATUSES, ...UPSTREAM_ONLY_RUN_STATUSES]);
      }
    }
    filter.statuses = f.statuses.filter((s) => STATUSES.has(s));
  }
  if (f.operations.length > 0) {
    const operations = new Set<RunOperation>();
    for (const operation of f.operations) {
      if (!OPERATIONS.has(operation)) throw invalid('filter[operation]', operation, OPERATIONS.keys());
      const value = OPERATIONS.get(operation);
      if (value !== undefined) operations.add(value);
    }
    filter.operations = [...operations];
  }
  if (f.sources.length > 0 && !f.sources.includes(SOURCE)) filter.matchesNothing = true;
  // Runs carry no VCS user or commit here.
  if (f.user || f.commit) filter.matchesNothing = true;
  if (f.basic) filter.basic = f.basic;
  return filter;
}
