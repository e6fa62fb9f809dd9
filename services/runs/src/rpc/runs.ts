import type { runsV1 } from '@policyhub/contracts';
import type { Handlers } from '@policyhub/grpc-runtime';
import type { RunControlUseCases } from '../use-cases/run-control.js';
import type { RunUseCases } from '../use-cases/runs.js';
import { toRun, toRunEvent } from './mappers.js';

export function runHandlers(runs: RunUseCases, control: RunControlUseCases): Handlers<runsV1.RunsHandlers> {
  return {
    async CreateRun(req, { principal }) {
      const run = await runs.create(principal, {
        workspaceId: req.workspaceId,
        message: req.message,
        planOnly: req.planOnly,
        isDestroy: req.isDestroy,
        configurationVersionId: req.configurationVersionId,
      });
      return { run: toRun(run, principal) };
    },
    async GetRun(req, { principal }) {
      return { run: toRun(await runs.get(principal, req.id), principal) };
    },
    async ListWorkspaceRuns(req, { principal }) {
      const res = await runs.listByWorkspace(principal, req.workspaceId, req.filter, req.page);
      return { runs: res.runs.map((r) => toRun(r, principal)), page: res.page };
    },
    async ListOrganizationRuns(req, { principal }) {
      const res = await runs.listByOrganization(principal, req.organization, req.filter, req.page);
      return { runs: res.runs.map((r) => toRun(r, principal)), page: res.page };
    },
    async CancelRun(req, { principal }) {
      return { run: toRun(await control.cancel(principal, req.runId, req.comment), principal) };
    },
    async DiscardRun(req, { principal }) {
      return { run: toRun(await control.discard(principal, req.runId, req.comment), principal) };
    },
    async ForceCancelRun(req, { principal }) {
      return { run: toRun(await control.forceCancel(principal, req.runId), principal) };
    },
    async BatchGetRuns(req, { principal }) {
      return { runs: (await runs.batchGet(principal, req.ids)).map((r) => toRun(r, principal)) };
    },

    async BatchGetCurrentRuns(req, { principal }) {
      return {
        runs: (await runs.currentRuns(principal, req.workspaceIds)).map((r) => toRun(r, principal)),
      };
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
