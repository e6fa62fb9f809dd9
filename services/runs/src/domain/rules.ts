import { AppError, type CodeOf, invalidAttribute, notFound } from '@policyhub/errors';
import { type Permission, type Principal, canStartRuns, hasPermission } from '@policyhub/permissions';

/**
 * Who may do what with runs (the README's "Permissions"): reading runs, their events, comments
 * and policy checks, and commenting, need `read-runs`; creating a run needs `manage-workspaces`
 * (it acts on the workspace, like queueing a plan upstream); overriding a check needs
 * `manage-policy-overrides`. An organization token holds `manage-workspaces` but never starts
 * runs, configuration versions or plans (upstream's rule; canStartRuns).
 * Owners and site admins have all. Not being allowed looks exactly like not existing.
 */
export const READ_RUNS: Permission = 'read-runs';
export const CREATE_RUNS: Permission = 'manage-workspaces';
export const OVERRIDE_POLICY_CHECKS: Permission = 'manage-policy-overrides';

export function requirePrincipal(principal: Principal | undefined): Principal {
  if (!principal) throw new AppError('unauthenticated', 'UNAUTHORIZED', [{ title: 'unauthorized' }]);
  return principal;
}

export function requirePermission(
  principal: Principal | undefined,
  organization: string,
  permission: Permission,
  code: CodeOf<'not_found'> = 'NOT_FOUND',
  organizationId?: string | null,
): void {
  // organizationId: the id recorded on the data; a re-created organization of the same name is
  // another organization and its members never reach the old one's runs (ADR 0019).
  const allowed =
    permission === CREATE_RUNS
      ? canStartRuns(principal, organization, organizationId)
      : hasPermission(principal, organization, permission, organizationId);
  if (!allowed) throw notFound(code);
}

export const COMMENT_BODY_MAX = 65_536;
export const RUN_MESSAGE_MAX = 10_000;
export const OVERRIDE_COMMENT_MAX = 10_000;

/** `value` unless it is longer than `max` characters: then a 422 naming `where`. */
function atMost(
  value: string,
  max: number,
  code: Parameters<typeof invalidAttribute>[0],
  where: string,
  label: string,
): string {
  if (value.length > max) {
    throw invalidAttribute(code, where, `${label} is too long (maximum is ${max} characters)`);
  }
  return value;
}

/** A comment needs a body with something other than white space in it. */
export function validateCommentBody(body: string): string {
  if (body.trim() === '') throw invalidAttribute('RUNS_COMMENT_BODY_BLANK', 'body', "Body can't be blank");
  return atMost(body, COMMENT_BODY_MAX, 'RUNS_COMMENT_BODY_TOO_LONG', 'body', 'Body');
}

export const validateRunMessage = (message: string): string =>
  atMost(message, RUN_MESSAGE_MAX, 'RUNS_RUN_MESSAGE_TOO_LONG', 'message', 'Message');

export const validateOverrideComment = (comment: string): string =>
  atMost(comment, OVERRIDE_COMMENT_MAX, 'RUNS_OVERRIDE_COMMENT_TOO_LONG', '/comment', 'Comment');

export const RUN_ACTION_COMMENT_MAX = 10_000;

export const validateRunActionComment = (comment: string): string =>
  atMost(comment, RUN_ACTION_COMMENT_MAX, 'RUNS_RUN_ACTION_COMMENT_TOO_LONG', '/comment', 'Comment');
