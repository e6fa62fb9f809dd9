import type { Queryable } from '@policyhub/db';
import { notFound } from '@policyhub/errors';
import type { Permission, Principal } from '@policyhub/permissions';
import { RunRepository, type RunRow } from '../db/run-repository.js';
import type { Deps } from '../deps.js';
import type { WorkspaceInfo } from '../domain/ports.js';
import { READ_RUNS, requirePermission } from '../domain/rules.js';

/** The run if the caller may read it; otherwise NOT_FOUND, exactly as if it did not exist. */
export async function readableRun(
  db: Queryable,
  principal: Principal | undefined,
  runId: string,
): Promise<RunRow> {
  const run = await new RunRepository(db).get(runId);
  if (!run) throw notFound('RUNS_RUN_NOT_FOUND');
  requirePermission(principal, run.organization, READ_RUNS, 'RUNS_RUN_NOT_FOUND', run.organization_id);
  return run;
}

/**
 * The workspace if the caller holds `permission` in its organization; otherwise NOT_FOUND, exactly
 * as if it did not exist.
 */
export async function permittedWorkspace(
  deps: Pick<Deps, 'workspaces'>,
  caller: Principal,
  workspaceId: string,
  permission: Permission,
): Promise<WorkspaceInfo> {
  const workspace = workspaceId ? await deps.workspaces.getWorkspace(workspaceId) : undefined;
  if (!workspace) throw notFound('RUNS_WORKSPACE_NOT_FOUND');
  requirePermission(
    caller,
    workspace.organization,
    permission,
    'RUNS_WORKSPACE_NOT_FOUND',
    workspace.organizationId,
  );
  return workspace;
}
