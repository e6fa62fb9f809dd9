import type { RunFacts } from './engine.js';

/**
 * The run as upstream exposes it to policies, in both frameworks (Sentinel's `tfrun` import, OPA's
 * `input.run`): id, created_at, message, speculative, is_destroy, organization.name,
 * workspace.id and .name. Only what PolicyHub knows is set; a property it does not know
 * (created_by, commit_sha, variables, cost estimates, the workspace's settings and project, and
 * is_destroy or workspace.name from a runs service that does not send them) is left out, so a
 * policy reading it finds it undefined rather than a made-up value.
 */
export function runData(run: RunFacts): Record<string, unknown> {
  const workspace: Record<string, unknown> = { id: run.workspace.id };
  if (run.workspace.name !== undefined) workspace.name = run.workspace.name;
  const data: Record<string, unknown> = {
    id: run.id,
    created_at: run.createdAt,
    message: run.message,
    speculative: run.speculative,
    organization: { name: run.organization.name },
    workspace,
  };
  if (run.isDestroy !== undefined) data.is_destroy = run.isDestroy;
  return data;
}
