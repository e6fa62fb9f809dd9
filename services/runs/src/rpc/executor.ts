import type * as grpc from '@grpc/grpc-js';
import type { runsV1 } from '@policyhub/contracts';
import { invalidAttribute, tooLarge } from '@policyhub/errors';
import { asServiceError, type Handlers, streaming } from '@policyhub/grpc-runtime';
import { MAX_PLAN_BYTES } from '../domain/ports.js';
import type { ExecutorUseCases } from '../use-cases/executor.js';
import { toRun } from './mappers.js';

/** Internal: executors act for no user, so runs come back without caller-specific flags. */
export function executorHandlers(
  executor: ExecutorUseCases,
  errorOptions: Parameters<typeof asServiceError>[2],
): Handlers<runsV1.RunExecutorHandlers> {
  return {
    async ReportPlanFinished(req) {
      return { run: toRun(await executor.planFinished(req.runId, Buffer.from(req.planJson)), undefined) };
    },
    ReportPlanFinishedStream: streaming(
      (
        call: grpc.ServerReadableStream<
          runsV1.ReportPlanFinishedStreamRequest__Output,
          runsV1.ReportPlanFinishedStreamResponse
        >,
        callback: grpc.sendUnaryData<runsV1.ReportPlanFinishedStreamResponse>,
      ) => {
        readPlanStream(call)
          .then(async ({ runId, plan }) => ({
            run: toRun(await executor.planFinished(runId, plan), undefined),
          }))
          .then(
            (res) => callback(null, res),
            (err: unknown) => {
              if (!call.cancelled) callback(asServiceError(err, 'ReportPlanFinishedStream', errorOptions));
            },
          );
      },
    ),
    async ReportRunErrored(req) {
      return { run: toRun(await executor.errored(req.runId, req.message ?? ''), undefined) };
    },
    async ReportRunCanceled(req) {
      return { run: toRun(await executor.canceled(req.runId), undefined) };
    },
  };
}

/** The run id (first message) and the plan's chunks, refused past MAX_PLAN_BYTES. */
async function readPlanStream(
  call: AsyncIterable<runsV1.ReportPlanFinishedStreamRequest__Output>,
): Promise<{ runId: string; plan: Buffer }> {
  let runId: string | undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const message of call) {
    if (runId === undefined) {
      if (message.part !== 'runId' || !message.runId) {
        throw invalidAttribute('RUNS_INVALID_STREAM', '/run_id', 'the first message must carry run_id');
      }
      runId = message.runId;
      continue;
    }
    if (message.part !== 'data' || !message.data) {
      throw invalidAttribute('RUNS_INVALID_STREAM', 'data', 'only the first message may carry run_id');
    }
    size += message.data.length;
    if (size > MAX_PLAN_BYTES) {
      throw tooLarge(
        'RUNS_PLAN_TOO_LARGE',
        `the plan JSON is larger than ${MAX_PLAN_BYTES / 1024 / 1024} MiB`,
      );
    }
    chunks.push(message.data);
  }
  if (runId === undefined) {
    throw invalidAttribute('RUNS_INVALID_STREAM', '/run_id', 'the first message must carry run_id');
  }
  return { runId, plan: Buffer.concat(chunks) };
}
