/*
 * The records the use cases answer with, as db/ reads them: rpc/ maps these to messages and so
 * depends on the use cases' answers, never on db/ itself.
 */
export type { CommentRow } from '../db/comment-repository.js';
export type { ConfigurationVersionRow } from '../db/configuration-version-repository.js';
export type { PlanRow } from '../db/plan-repository.js';
export type { LeaseRow, PolicyCheckRow } from '../db/policy-check-repository.js';
export type { RunEventRow } from '../db/run-event-repository.js';
export type { RunView } from '../db/run-repository.js';
