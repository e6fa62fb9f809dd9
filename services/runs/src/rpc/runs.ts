import type { runsV1 } from '@policyhub/contracts';
import type { Handlers } from '@policyhub/grpc-runtime';
import type { RunUseCases } from '../use-cases/runs.js';
import { toRun, toRunEvent } from './mappers.js';

export function runHandlers(runs: RunUseCases): Handlers<runsV1.RunsHandlers> {
  return {
    async CreateRun(req, { principal }) {
      const run = await runs.create(principal, {
        workspaceId: req.workspaceId,
        message: req.message,
        planOnly: req.planOnly,
        configurationVersionId: req.configurationVersionId,
      });
      return { run: toRun(run, principal) };
    },
    async GetRun(req, { principal }) {
      return { run: toRun(await runs.get(principal, req.id), principal) };
    },
    async ListWorkspaceRuns(req, { principal }) {
      const res = await runs.listByWorkspace(principal, req.workspaceId, req.page);
      return { runs: res.runs.map((r) => toRun(r, principal)), page: res.page };
    },
    async BatchGetRuns(req, { principal }) {
      return { runs: (await runs.batchGet(principal, req.ids)).map((r) => toRun(r, principal)) };
    },
    async GetRunEvent(req, { principal }) {
      return { runEvent: toRunEvent(await runs.getEvent(principal, req.id)) };
    },
    async ListRunEvents(req, { principal }) {
      const res = await runs.listEvents(principal, req.runId, req.page);
      return { runEvents: res.events.map(toRunEvent), page: res.page };
    },
  };
}
