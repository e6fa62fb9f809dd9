import { pageInfo, pageWindow } from '@policyhub/db';
import { conflict, notFound } from '@policyhub/errors';
import { auditActorOf } from '@policyhub/events';
import type { Principal } from '@policyhub/permissions';
import { PolicyCheckRepository, type PolicyCheckRow } from '../db/policy-check-repository.js';
import { lockRunAndCheck } from '../db/run-locks.js';
import { CHECK_STATUS, isOverridable } from '../domain/policy-check-status.js';
import {
  OVERRIDE_POLICY_CHECKS,
  READ_RUNS,
  requirePermission,
  requirePrincipal,
  validateOverrideComment,
} from '../domain/rules.js';
import { readableRun } from './access.js';
import type { Deps } from '../deps.js';
import { recordAudit } from '../events/audit.js';
import { checkTimestamps, moveRun, recordRunEvent, runStatusAfterCheckAndStage } from './transitions.js';

type Page = { number?: number; size?: number } | null | undefined;

export const NOT_OVERRIDABLE_DETAIL = 'The policy check is not in an overridable state.';

/** Policy checks as users see them: read, list, override, output. */
export class PolicyCheckUseCases {
  private readonly checks: PolicyCheckRepository;

  constructor(private readonly deps: Deps) {
    this.checks = new PolicyCheckRepository(deps.db);
  }

  async get(principal: Principal | undefined, id: string): Promise<PolicyCheckRow> {
    const check = await this.checks.get(id);
    if (!check) throw notFound('RUNS_POLICY_CHECK_NOT_FOUND');
    requirePermission(
      principal,
      check.organization,
      READ_RUNS,
      'RUNS_POLICY_CHECK_NOT_FOUND',
      check.organization_id,
    );
    return check;
  }

  /** Every check of the run without a page; one page otherwise. */
  async listByRun(principal: Principal | undefined, runId: string, page: Page) {
    await readableRun(this.deps.db, principal, runId);
    if (!page) {
      return { checks: (await this.checks.listByRun(runId)).rows, page: undefined };
    }
    const w = pageWindow(page);
    const { rows, total } = await this.checks.listByRun(runId, { limit: w.size, offset: w.offset });
    return { checks: rows, page: pageInfo(w, total) };
  }

  /**
   * Overrides a soft failure: check → overridden, run policy_override → policy_checked, and a
   * `policy-overridden` run event carrying the justification.
   */
  async override(
    principal: Principal | undefined,
    id: string,
    comment: string | undefined,
  ): Promise<PolicyCheckRow> {
    const caller = requirePrincipal(principal);
    const found = await this.checks.get(id);
    if (!found) throw notFound('RUNS_POLICY_CHECK_NOT_FOUND');
    requirePermission(
      caller,
      found.organization,
      OVERRIDE_POLICY_CHECKS,
      'RUNS_POLICY_CHECK_NOT_FOUND',
      found.organization_id,
    );
    const justification = validateOverrideComment(comment?.trim() ?? '');
    await this.deps.db.transaction(async (tx) => {
      const locked = await lockRunAndCheck(tx, id);
      if (!locked) throw notFound('RUNS_POLICY_CHECK_NOT_FOUND');
      const { run, check } = locked;
      // Decided on the states read under the lock: a cancel or error that ended the run first wins.
      if (!isOverridable(check.status, run.status)) {
        throw conflict('RUNS_POLICY_CHECK_NOT_OVERRIDABLE', NOT_OVERRIDABLE_DETAIL);
      }
      await new PolicyCheckRepository(tx).decide(id, {
        status: CHECK_STATUS.overridden,
        statusTimestamps: checkTimestamps(check, CHECK_STATUS.overridden),
        overrideComment: justification || undefined,
        overriddenBy: caller.userId,
      });
      await moveRun(tx, run, await runStatusAfterCheckAndStage(tx, run, CHECK_STATUS.overridden));
      await recordRunEvent(tx, {
        runId: run.id,
        action: 'policy-overridden',
        description: justification,
        actorUserId: caller.userId,
        policyCheckId: id,
      });
      await recordAudit(tx, {
        organization: { name: run.organization, id: run.organization_id },
        actor: auditActorOf(caller),
        resource: { type: 'policy_check', id, action: 'override' },
        meta: { run_id: run.id, comment: justification || undefined },
      });
    });
    return (await this.checks.get(id))!;
  }

  async output(principal: Principal | undefined, id: string): Promise<string | null> {
    await this.get(principal, id);
    return this.checks.output(id);
  }
}
