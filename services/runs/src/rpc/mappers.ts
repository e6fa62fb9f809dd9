import type { runsV1 } from '@policyhub/contracts';
import { type Principal, hasPermission } from '@policyhub/grpc-runtime';
import type { CommentRow } from '../db/comment-repository.js';
import type { ConfigurationVersionRow } from '../db/configuration-version-repository.js';
import type { PlanRow } from '../db/plan-repository.js';
import type { PolicyCheckRow } from '../db/policy-check-repository.js';
import type { RunEventRow } from '../db/run-event-repository.js';
import type { RunView } from '../db/run-repository.js';
import type { LeaseRow } from '../db/policy-check-repository.js';
import { isCvUploadUsable } from '../domain/configuration-versions.js';
import { isOverridable } from '../domain/policy-check-status.js';
import { OVERRIDE_POLICY_CHECKS, READ_RUNS } from '../domain/rules.js';
import { isFinalRunStatus } from '../domain/run-status.js';

/** Status timestamps in the order they happened (jsonb keeps keys in its own order). */
const chronological = (timestamps: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(timestamps).sort(([, a], [, b]) => Date.parse(a) - Date.parse(b)));

export const toRun = (r: RunView, principal: Principal | undefined): runsV1.Run => ({
  id: r.id,
  organization: r.organization,
  workspaceId: r.workspace_id,
  message: r.message,
  status: r.status,
  statusTimestamps: chronological(r.status_timestamps),
  planOnly: r.plan_only,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  policyCheckIds: r.policy_check_ids,
  commentIds: r.comment_ids,
  runEventIds: r.run_event_ids,
  hasPlan: r.plan_object_key !== null,
  isCancelable: !isFinalRunStatus(r.status),
  canComment: hasPermission(principal, r.organization, READ_RUNS, r.organization_id),
  planId: r.plan_id,
  configurationVersionId: r.configuration_version_id ?? '',
});

export const toPlan = (p: PlanRow): runsV1.Plan => ({
  id: p.id,
  runId: p.run_id,
  organization: p.organization,
  status: p.status,
  statusTimestamps: chronological(p.status_timestamps),
  hasChanges: p.has_changes,
  resourceAdditions: p.resource_additions,
  resourceChanges: p.resource_changes,
  resourceDestructions: p.resource_destructions,
  resourceImports: p.resource_imports,
  hasJsonOutput: p.has_json_output,
  createdAt: p.created_at,
  updatedAt: p.updated_at,
});

export const toConfigurationVersion = (
  v: ConfigurationVersionRow,
  now = new Date(),
): runsV1.ConfigurationVersion => ({
  id: v.id,
  organization: v.organization,
  workspaceId: v.workspace_id,
  status: v.status,
  statusTimestamps: chronological(v.status_timestamps),
  source: v.source,
  autoQueueRuns: v.auto_queue_runs,
  speculative: v.speculative,
  provisional: v.provisional,
  error: v.error ?? '',
  errorMessage: v.error_message ?? '',
  uploadToken: isCvUploadUsable(v, now) ? v.upload_token! : '',
  createdAt: v.created_at,
  updatedAt: v.updated_at,
});

export const toRunEvent = (e: RunEventRow): runsV1.RunEvent => ({
  id: e.id,
  runId: e.run_id,
  action: e.action,
  description: e.description,
  actorUserId: e.actor_user_id,
  commentId: e.comment_id ?? '',
  policyCheckId: e.policy_check_id ?? '',
  createdAt: e.created_at,
});

export const toComment = (c: CommentRow): runsV1.Comment => ({
  id: c.id,
  runId: c.run_id,
  body: c.body,
  runEventId: c.run_event_id,
  authorUserId: c.author_user_id,
  createdAt: c.created_at,
});

export const toPolicyCheck = (c: PolicyCheckRow, principal: Principal | undefined): runsV1.PolicyCheck => ({
  id: c.id,
  runId: c.run_id,
  organization: c.organization,
  workspaceId: c.workspace_id,
  scope: c.scope,
  status: c.status,
  statusTimestamps: chronological(c.status_timestamps),
  result: c.result
    ? {
        result: c.result.result,
        passed: c.result.passed,
        totalFailed: c.result.totalFailed,
        hardFailed: c.result.hardFailed,
        softFailed: c.result.softFailed,
        advisoryFailed: c.result.advisoryFailed,
        durationMs: String(c.result.durationMs),
        engineDetailsJson: JSON.stringify(c.result.engineDetails),
      }
    : null,
  isOverridable: isOverridable(c.status, c.plan_only),
  canOverride: hasPermission(principal, c.organization, OVERRIDE_POLICY_CHECKS, c.organization_id),
  hasOutput: c.has_output,
  overrideComment: c.override_comment ?? '',
  createdAt: c.created_at,
  updatedAt: c.updated_at,
});

export const toLease = (l: LeaseRow): runsV1.PolicyCheckLease => ({
  policyCheckId: l.id,
  leaseToken: l.lease_token,
  expiresAt: l.lease_expires_at,
  attempt: l.attempts,
});
