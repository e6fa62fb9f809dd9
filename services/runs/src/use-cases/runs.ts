import { pageInfo, pageWindow } from '@policyhub/db';
import { AppError, notFound } from '@policyhub/errors';
import { hasPermission, type Principal } from '@policyhub/permissions';
import { ConfigurationVersionRepository } from '../db/configuration-version-repository.js';
import { RunEventRepository, type RunEventRow } from '../db/run-event-repository.js';
import { RunRepository, type RunView } from '../db/run-repository.js';
import {
  CREATE_RUNS,
  READ_RUNS,
  requirePermission,
  requirePrincipal,
  validateRunMessage,
} from '../domain/rules.js';
import { CV_STATUS, INVALID_RUN_PARAMETERS } from '../domain/configuration-versions.js';
import { permittedWorkspace, readableRun } from './access.js';
import type { Deps } from '../deps.js';
import { insertRun } from './run-creation.js';
import { type RunListRequest, runListFilter } from '../domain/run-filter.js';

type RunFilter = RunListRequest | null | undefined;

type Page = { number?: number; size?: number } | null | undefined;

/** Runs and their events as users see them. */
export class RunUseCases {
  private readonly runs: RunRepository;
  private readonly events: RunEventRepository;

  constructor(private readonly deps: Deps) {
    this.runs = new RunRepository(deps.db);
    this.events = new RunEventRepository(deps.db);
  }

  async create(
    principal: Principal | undefined,
    input: {
      workspaceId: string;
      message: string;
      planOnly: boolean;
      isDestroy?: boolean;
      configurationVersionId?: string;
    },
  ): Promise<RunView> {
    const caller = requirePrincipal(principal);
    const workspace = await permittedWorkspace(this.deps, caller, input.workspaceId, CREATE_RUNS);
    const message = validateRunMessage(input.message);
    const id = await this.deps.db.transaction(async (tx) => {
      let speculative = false;
      if (input.configurationVersionId) {
        const cv = await new ConfigurationVersionRepository(tx).get(input.configurationVersionId);
        // Missing and another workspace's look the same: nothing about other workspaces leaks.
        if (!cv || cv.workspace_id !== workspace.id) {
          throw unusableConfigurationVersion(
            'RUNS_CONFIGURATION_VERSION_MISSING',
            `the configuration version ${input.configurationVersionId} does not belong to this workspace`,
          );
        }
        if (cv.status !== CV_STATUS.uploaded) {
          throw unusableConfigurationVersion(
            'RUNS_CONFIGURATION_VERSION_NOT_UPLOADED',
            `the configuration version ${cv.id} is ${cv.status}, not uploaded`,
          );
        }
        speculative = cv.speculative;
      }
      return insertRun(tx, {
        organization: workspace.organization,
        organizationId: workspace.organizationId,
        workspaceId: workspace.id,
        message,
        // A speculative configuration can only be planned (upstream).
        planOnly: input.planOnly || speculative,
        isDestroy: input.isDestroy ?? false,
        configurationVersionId: input.configurationVersionId || null,
        createdBy: caller.userId,
      });
    });
    return (await this.runs.getView(id))!;
  }

  async get(principal: Principal | undefined, id: string): Promise<RunView> {
    const run = await this.runs.getView(id);
    if (!run) throw notFound('RUNS_RUN_NOT_FOUND');
    requirePermission(principal, run.organization, READ_RUNS, 'RUNS_RUN_NOT_FOUND', run.organization_id);
    return run;
  }

  async listByWorkspace(
    principal: Principal | undefined,
    workspaceId: string,
    filter: RunFilter,
    page: Page,
  ) {
    await permittedWorkspace(this.deps, requirePrincipal(principal), workspaceId, READ_RUNS);
    const where = runListFilter(filter);
    const w = pageWindow(page);
    const { rows, total } = await this.runs.listByWorkspace(workspaceId, where, w.size, w.offset);
    return { runs: rows, page: pageInfo(w, total) };
  }

  /** Every run of the organization's workspaces (`read-runs` is organization-wide). */
  async listByOrganization(
    principal: Principal | undefined,
    organization: string,
    filter: RunFilter,
    page: Page,
  ) {
    const caller = requirePrincipal(principal);
    requirePermission(caller, organization, READ_RUNS);
    const where = runListFilter(filter);
    const w = pageWindow(page);
    const { rows, total } = await this.runs.listByOrganization(
      { name: organization, id: caller.organizationIds?.get(organization) ?? null },
      where,
      w.size,
      w.offset,
    );
    return { runs: rows, page: pageInfo(w, total) };
  }

  /** The readable subset of `ids` (for `include`); missing or hidden ones are left out. */
  async batchGet(principal: Principal | undefined, ids: readonly string[]): Promise<RunView[]> {
    requirePrincipal(principal);
    const unique = [...new Set(ids)].slice(0, 1000);
    return (await this.runs.getViews(unique)).filter((r) =>
      hasPermission(principal, r.organization, READ_RUNS, r.organization_id),
    );
  }

  /** The current run of each of these workspaces the caller may read (for `include`). */
  async currentRuns(principal: Principal | undefined, workspaceIds: readonly string[]): Promise<RunView[]> {
    requirePrincipal(principal);
    const unique = [...new Set(workspaceIds)].slice(0, 1000);
    return (await this.runs.currentRuns(unique)).filter((r) =>
      hasPermission(principal, r.organization, READ_RUNS, r.organization_id),
    );
  }

  async getEvent(principal: Principal | undefined, id: string): Promise<RunEventRow> {
    const event = await this.events.get(id);
    if (!event) throw notFound('RUNS_RUN_EVENT_NOT_FOUND');
    requirePermission(
      principal,
      event.organization,
      READ_RUNS,
      'RUNS_RUN_EVENT_NOT_FOUND',
      event.organization_id,
    );
    return event;
  }

  async listEvents(principal: Principal | undefined, runId: string, page: Page) {
    await readableRun(this.deps.db, principal, runId);
    const w = pageWindow(page);
    const { rows, total } = await this.events.listByRun(runId, w.size, w.offset);
    return { events: rows, page: pageInfo(w, total) };
  }
}

/** Upstream's 422 for a run whose configuration version cannot be used, with the reason added. */
const unusableConfigurationVersion = (
  code: 'RUNS_CONFIGURATION_VERSION_MISSING' | 'RUNS_CONFIGURATION_VERSION_NOT_UPLOADED',
  reason: string,
) =>
  new AppError('invalid', code, [
    {
      title: 'unprocessable entity',
      detail: `${INVALID_RUN_PARAMETERS}: ${reason}`,
      field: 'configuration_version.id',
    },
  ]);
