import { pageInfo, pageWindow } from '@policyhub/db';
import { newId, notFound } from '@policyhub/errors';
import { type Principal, hasPermission } from '@policyhub/grpc-runtime';
import { RunEventRepository, type RunEventRow } from '../db/run-event-repository.js';
import { RunRepository, type RunView } from '../db/run-repository.js';
import {
  CREATE_RUNS,
  READ_RUNS,
  requirePermission,
  requirePrincipal,
  validateRunMessage,
} from '../domain/rules.js';
import { RUN_STATUS, withStatusTimestamp } from '../domain/run-status.js';
import { readableRun } from './access.js';
import type { WorkflowContext } from './context.js';
import { recordRunEvent } from './transitions.js';

type Page = { number?: number; size?: number } | null | undefined;

/** Runs and their events as users see them. */
export class RunWorkflows {
  private readonly runs: RunRepository;
  private readonly events: RunEventRepository;

  constructor(private readonly ctx: WorkflowContext) {
    this.runs = new RunRepository(ctx.db);
    this.events = new RunEventRepository(ctx.db);
  }

  async create(
    principal: Principal | undefined,
    input: { workspaceId: string; message: string; planOnly: boolean },
  ): Promise<RunView> {
    const caller = requirePrincipal(principal);
    const workspace = input.workspaceId
      ? await this.ctx.workspaces.getWorkspace(input.workspaceId)
      : undefined;
    if (!workspace) throw notFound('RUNS_WORKSPACE_NOT_FOUND');
    requirePermission(caller, workspace.organization, CREATE_RUNS, 'RUNS_WORKSPACE_NOT_FOUND');
    const message = validateRunMessage(input.message);
    const id = newId('run');
    const now = new Date();
    await this.ctx.db.transaction(async (tx) => {
      await new RunRepository(tx).insert({
        id,
        organization: workspace.organization,
        workspaceId: workspace.id,
        message,
        status: RUN_STATUS.pending,
        statusTimestamps: withStatusTimestamp({}, RUN_STATUS.pending, now),
        planOnly: input.planOnly,
        createdBy: caller.userId,
        createdAt: now.toISOString(),
      });
      await recordRunEvent(tx, { runId: id, action: 'created', actorUserId: caller.userId });
    });
    return (await this.runs.getView(id))!;
  }

  async get(principal: Principal | undefined, id: string): Promise<RunView> {
    const run = await this.runs.getView(id);
    if (!run) throw notFound('RUNS_RUN_NOT_FOUND');
    requirePermission(principal, run.organization, READ_RUNS, 'RUNS_RUN_NOT_FOUND');
    return run;
  }

  async listByWorkspace(principal: Principal | undefined, workspaceId: string, page: Page) {
    requirePrincipal(principal);
    const workspace = await this.ctx.workspaces.getWorkspace(workspaceId);
    if (!workspace) throw notFound('RUNS_WORKSPACE_NOT_FOUND');
    requirePermission(principal, workspace.organization, READ_RUNS, 'RUNS_WORKSPACE_NOT_FOUND');
    const w = pageWindow(page);
    const { rows, total } = await this.runs.listByWorkspace(workspaceId, w.size, w.offset);
    return { runs: rows, page: pageInfo(w, total) };
  }

  /** The readable subset of `ids` (for `include`); missing or hidden ones are left out. */
  async batchGet(principal: Principal | undefined, ids: readonly string[]): Promise<RunView[]> {
    requirePrincipal(principal);
    const unique = [...new Set(ids)].slice(0, 1000);
    return (await this.runs.getViews(unique)).filter((r) =>
      hasPermission(principal, r.organization, READ_RUNS),
    );
  }

  async getEvent(principal: Principal | undefined, id: string): Promise<RunEventRow> {
    const event = await this.events.get(id);
    if (!event) throw notFound('RUNS_RUN_EVENT_NOT_FOUND');
    requirePermission(principal, event.organization, READ_RUNS, 'RUNS_RUN_EVENT_NOT_FOUND');
    return event;
  }

  async listEvents(principal: Principal | undefined, runId: string, page: Page) {
    await readableRun(this.ctx.db, principal, runId);
    const w = pageWindow(page);
    const { rows, total } = await this.events.listByRun(runId, w.size, w.offset);
    return { events: rows, page: pageInfo(w, total) };
  }
}
