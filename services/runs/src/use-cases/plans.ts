import { badRequest, notFound, tooLarge } from '@policyhub/errors';
import type { Principal } from '@policyhub/permissions';
import { PlanRepository, type PlanRow } from '../db/plan-repository.js';
import { RunRepository, type RunView } from '../db/run-repository.js';
import { PlanDocumentValidator } from '../domain/plan-document.js';
import { planLog } from '../domain/plan-log.js';
import { PLAN_STATUS, PLAN_UPLOAD_HOLD_MS } from '../domain/plan-status.js';
import { planObjectKey } from '../domain/ports.js';
import { CREATE_RUNS, READ_RUNS, requirePermission } from '../domain/rules.js';
import { canFinishPlan } from '../domain/run-status.js';
import type { Deps } from '../deps.js';
import {
  claimPlan,
  finishPlan,
  planAlreadyUploaded,
  releasePlan,
  runStateConflict,
} from './plan-finishing.js';

/** The sender went away before the whole document arrived: nothing may count. */
export class PlanUploadAbandonedError extends Error {
  constructor() {
    super('the sender abandoned the plan upload');
    this.name = 'PlanUploadAbandonedError';
  }
}

const formatMiB = (bytes: number) =>
  bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;

/** Plans as users see them, and their JSON document in and out over HTTP (through the gateway). */
export class PlanUseCases {
  private readonly plans: PlanRepository;
  private readonly runs: RunRepository;

  constructor(private readonly deps: Deps) {
    this.plans = new PlanRepository(deps.db);
    this.runs = new RunRepository(deps.db);
  }

  async get(principal: Principal | undefined, id: string): Promise<PlanRow> {
    const plan = await this.plans.get(id);
    if (!plan) throw notFound('RUNS_PLAN_NOT_FOUND');
    requirePermission(principal, plan.organization, READ_RUNS, 'RUNS_PLAN_NOT_FOUND', plan.organization_id);
    return plan;
  }

  /**
   * The token of the plan's log URL for this caller ('' for internal callers): it stands for the
   * caller's `read-runs`, which ReadPlanLog checks again when the URL is used.
   */
  logToken(principal: Principal | undefined, plan: PlanRow): string {
    return principal?.userId ? this.deps.logTokens.mint(plan.id, principal.userId) : '';
  }

  /**
   * The log a token names (internal callers only: the gateway's public log URL). A token that is
   * altered or expired, of a plan that is gone, or of a subject that may no longer read runs in
   * the plan's organization is NOT_FOUND, all alike: the holder learns nothing of whose right
   * lapsed.
   */
  async readLog(
    principal: Principal | undefined,
    token: string,
  ): Promise<{ log: string; complete: boolean }> {
    const unknown = () => notFound('RUNS_PLAN_LOG_NOT_FOUND');
    if (principal) throw unknown();
    const claims = this.deps.logTokens.verify(token);
    if (!claims) throw unknown();
    const plan = await this.plans.get(claims.planId);
    if (!plan) throw unknown();
    const permitted = await this.deps.permissions.holds({
      subjectId: claims.subjectId,
      organization: plan.organization,
      organizationId: plan.organization_id ?? undefined,
      permission: READ_RUNS,
    });
    if (!permitted) throw unknown();
    return { log: planLog(plan), complete: plan.status !== PLAN_STATUS.pending };
  }

  /**
   * `PUT /plans/:id/json-output`: validates the document while streaming it to storage (never
   * held whole), then finishes the plan as an executor's report does. Only the caller allowed to
   * queue runs in the organization may; a plan takes its JSON once, while its run is pending.
   * Any failure (bad document, too large, sender gone) leaves the plan pending and untouched.
   */
  async uploadJson(
    principal: Principal | undefined,
    id: string,
    body: AsyncIterable<Buffer>,
    isAbandoned: () => boolean,
  ): Promise<{ plan: PlanRow; run: RunView }> {
    const plan = await this.plans.get(id);
    if (!plan) throw notFound('RUNS_PLAN_NOT_FOUND');
    requirePermission(principal, plan.organization, CREATE_RUNS, 'RUNS_PLAN_NOT_FOUND', plan.organization_id);
    if (plan.status === PLAN_STATUS.finished) throw planAlreadyUploaded();
    const run = (await this.runs.get(plan.run_id))!;
    if (!canFinishPlan(run.status)) throw runStateConflict(run.status, 'only a pending run takes a plan');
    const attempt = await claimPlan(this.deps, plan.id);
    try {
      const key = planObjectKey(run.organization, run.id);
      const writer = this.deps.streams.openWriter(key, 'application/json', run.organization_id ?? '');
      const validator = new PlanDocumentValidator();
      const deadline = Date.now() + PLAN_UPLOAD_HOLD_MS;
      let size = 0;
      let summary: ReturnType<PlanDocumentValidator['end']>;
      try {
        for await (const chunk of body) {
          size += chunk.length;
          if (size > this.deps.planMaxBytes) {
            throw tooLarge(
              'RUNS_PLAN_TOO_LARGE',
              `the plan JSON is larger than ${formatMiB(this.deps.planMaxBytes)}`,
            );
          }
          if (Date.now() > deadline) {
            throw badRequest(
              'RUNS_PLAN_UPLOAD_TIMEOUT',
              'the plan JSON did not arrive in time; send it again',
            );
          }
          validator.write(chunk);
          await writer.write(chunk);
        }
        summary = validator.end();
        if (isAbandoned()) throw new PlanUploadAbandonedError();
        await writer.finish();
        if (isAbandoned()) throw new PlanUploadAbandonedError();
      } catch (err) {
        writer.abort();
        throw err;
      }
      await finishPlan(this.deps, run, { key, summary, sizeBytes: size, attempt });
    } finally {
      await releasePlan(this.deps, plan.id, attempt);
    }
    return { plan: (await this.plans.get(id))!, run: (await this.runs.getView(run.id))! };
  }

  /** `GET /plans/:id/json-output`: the stored document as it arrived; NOT_FOUND before. */
  async openJson(principal: Principal | undefined, id: string): Promise<AsyncIterable<Buffer>> {
    const plan = await this.get(principal, id);
    const run = await this.runs.get(plan.run_id);
    if (!run?.plan_object_key) throw notFound('RUNS_PLAN_JSON_NOT_FOUND');
    const stream = await this.deps.streams.openReader(run.plan_object_key);
    if (!stream) throw notFound('RUNS_PLAN_JSON_NOT_FOUND');
    return stream;
  }
}
