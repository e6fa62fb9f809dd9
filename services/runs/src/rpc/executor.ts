import type { runsV1 } from '@policyhub/contracts';
import type { Handlers } from '@policyhub/grpc-runtime';
import type { ExecutorWorkflows } from '../workflows/executor.js';
import { toRun } from './mappers.js';

/** Internal: executors act for no user, so runs come back without caller-specific flags. */
export function executorHandlers(executor: ExecutorWorkflows): Handlers<runsV1.RunExecutorHandlers> {
  return {
    async ReportPlanFinished(req) {
      return { run: toRun(await executor.planFinished(req.runId, Buffer.from(req.planJson)), undefined) };
    },
    async ReportRunErrored(req) {
      return { run: toRun(await executor.errored(req.runId, req.message), undefined) };
    },
    async ReportRunCanceled(req) {
      return { run: toRun(await executor.canceled(req.runId), undefined) };
    },
  };
}
