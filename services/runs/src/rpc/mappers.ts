import {
  configurationVersionSource,
  configurationVersionStatus,
  planStatus,
  policyCheckScope,
  policyCheckStatus,
  runEventAction,
  runStatus,
  type runsV1,
  toOptionalTimestamp,
  toTimestamp,
} from '@policyhub/contracts';
import { type Principal, type UploadTokens, canStartRuns, hasPermission } from '@policyhub/grpc-runtime';
import type {
  CommentRow,
  ConfigurationVersionRow,
  LeaseRow,
  PlanRow,
  PolicyCheckRow,
  RunEventRow,
  RunView,
} from '../use-cases/records.js';
import { CV_STATUS, isCvUploadUsable } from '../domain/configuration-versions.js';
import { isOverridable } from '../domain/policy-check-status.js';
import { CREATE_RUNS, OVERRIDE_POLICY_CHECKS, READ_RUNS } from '../domain/rules.js';
import { isCancelable, isDiscardable } from '../domain/run-status.js';
import { isPolicyEvaluationId } from '../use-cases/policy-evaluations.js';

/**
 * Status word → when it was entered, in the order they happened (jsonb keeps keys in its own
 * order).
 */
const statusTimestamps = (timestamps: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(timestamps)
      .sort(([, a], [, b]) => Date.parse(a) - Date.parse(b))
      .map(([status, at]) => [status, toTimestamp(at)]),
  );

/** Columns that hold '' for "none" (their NOT NULL DEFAULT ''): unset on the wire. */
const unlessEmpty = (value: string | null): string | undefined => (value ? value : undefined);

export const toRun = (r: RunView, principal: Principal | undefined): runsV1.Run => ({
  id: r.id,
  organization: r.organization,
  workspaceId: r.workspace_id,
  message: r.message,
  status: runStatus.fromKnownWord(r.status),
  statusTimestamps: statusTimestamps(r.status_timestamps),
  planOnly: r.plan_only,
  isDestroy: r.is_destroy,
  createdAt: toTimestamp(r.created_at),
  updatedAt: toTimestamp(r.updated_at),
  policyCheckIds: r.policy_check_ids,
  commentIds: r.comment_ids,
  runEventIds: r.run_event_ids,
  hasPlan: r.plan_object_key !== null,
  isCancelable: isCancelable(r.status),
  isDiscardable: isDiscardable(r.status),
  canComment: hasPermission(principal, r.organization, READ_RUNS, r.organization_id),
  canControl: hasPermission(principal, r.organization, CREATE_RUNS, r.organization_id),
  planId: r.plan_id,
  configurationVersionId: r.configuration_version_id ?? undefined,
  taskStageIds: r.task_stage_ids,
});

/** `logReadToken`: the caller's log capability ('' for none). */
export const toPlan = (p: PlanRow, logReadToken = ''): runsV1.Plan => ({
  id: p.id,
  runId: p.run_id,
  organization: p.organization,
  status: planStatus.fromKnownWord(p.status),
  statusTimestamps: statusTimestamps(p.status_timestamps),
  hasChanges: p.has_changes,
  resourceAdditions: p.resource_additions,
  resourceChanges: p.resource_changes,
  resourceDestructions: p.resource_destructions,
  resourceImports: p.resource_imports,
  hasJsonOutput: p.has_json_output,
  createdAt: toTimestamp(p.created_at),
  updatedAt: toTimestamp(p.updated_at),
  logReadToken,
});

export const toConfigurationVersion = (
  v: ConfigurationVersionRow,
  principal: Principal | undefined,
  uploadTokens: UploadTokens,
  now = new Date(),
): runsV1.ConfigurationVersion => ({
  id: v.id,
  organization: v.organization,
  workspaceId: v.workspace_id,
  status: configurationVersionStatus.fromKnownWord(v.status),
  statusTimestamps: statusTimestamps(v.status_timestamps),
  source: configurationVersionSource.fromKnownWord(v.source),
  autoQueueRuns: v.auto_queue_runs,
  speculative: v.speculative,
  provisional: v.provisional,
  error: v.error ?? undefined,
  errorMessage: v.error_message ?? undefined,
  // The URL is a capability to upload: shown only to callers who may upload themselves, and
  // minted afresh from the session id on every read (ADR 0059): nothing stored works as one.
  uploadToken:
    isCvUploadUsable(v, now) && canStartRuns(principal, v.organization, v.organization_id)
      ? uploadTokens.mint(v.upload_session_id!, v.upload_expires_at)
      : undefined,
  createdAt: toTimestamp(v.created_at),
  updatedAt: toTimestamp(v.updated_at),
  // The upload was processed when the version left pending.
  finishedAt: toOptionalTimestamp(
    v.status_timestamps[CV_STATUS.uploaded] ?? v.status_timestamps[CV_STATUS.errored],
  ),
});

export const toRunEvent = (e: RunEventRow): runsV1.RunEvent => ({
  id: e.id,
  runId: e.run_id,
  action: runEventAction.fromKnownWord(e.action),
  description: unlessEmpty(e.description),
  actorUserId: unlessEmpty(e.actor_user_id),
  commentId: unlessEmpty(e.comment_id),
  policyCheckId: unlessEmpty(e.policy_check_id),
  createdAt: toTimestamp(e.created_at),
  taskStageId: unlessEmpty(e.task_stage_id),
});

export const toComment = (c: CommentRow): runsV1.Comment => ({
  id: c.id,
  runId: c.run_id,
  body: c.body,
  runEventId: c.run_event_id,
  authorUserId: c.author_user_id,
  createdAt: toTimestamp(c.created_at),
});

export const toPolicyCheck = (c: PolicyCheckRow, principal: Principal | undefined): runsV1.PolicyCheck => ({
  id: c.id,
  runId: c.run_id,
  organization: c.organization,
  workspaceId: c.workspace_id,
  scope: policyCheckScope.fromKnownWord(c.scope),
  status: policyCheckStatus.fromKnownWord(c.status),
  statusTimestamps: statusTimestamps(c.status_timestamps),
  result: c.result
    ? {
        result: c.result.result,
        passed: c.result.passed,
        totalFailed: c.result.totalFailed,
        hardFailed: c.result.hardFailed,
        softFailed: c.result.softFailed,
        advisoryFailed: c.result.advisoryFailed,
        durationMs: c.result.durationMs,
        engineDetailsJson: JSON.stringify(c.result.engineDetails),
      }
    : null,
  isOverridable: isOverridable(c.status, c.run_status),
  canOverride: hasPermission(principal, c.organization, OVERRIDE_POLICY_CHECKS, c.organization_id),
  hasOutput: c.has_output,
  overrideComment: c.override_comment ?? undefined,
  createdAt: toTimestamp(c.created_at),
  updatedAt: toTimestamp(c.updated_at),
});

export const toLease = (l: LeaseRow): runsV1.PolicyCheckLease => ({
  policyCheckId: l.id,
  leaseToken: l.lease_token,
  expiresAt: toTimestamp(l.lease_expires_at),
  attempt: l.attempts,
  policyEvaluation: isPolicyEvaluationId(l.id),
});
