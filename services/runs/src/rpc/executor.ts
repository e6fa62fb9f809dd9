import type * as grpc from '@grpc/grpc-js';
import type { runsV1 } from '@policyhub/contracts';
import { invalidAttribute, tooLarge } from '@policyhub/errors';
import {
  type Handlers,
  type HeaderSpec,
  headerThenData,
  type ImplementOptions,
  respond,
  streaming,
} from '@policyhub/grpc-runtime';
import { MAX_PLAN_BYTES } from '../domain/ports.js';
import type { ExecutorUseCases } from '../use-cases/executor.js';
import { toRun } from './mappers.js';

/** The first message of ReportPlanFinishedStream carries the run id (`run_id` on the wire). */
const RUN_ID: HeaderSpec = { field: 'runId', name: 'run_id', errorCode: 'RUNS_INVALID_STREAM' };

/** Internal: executors act for no user, so runs come back without caller-specific flags. */
export function executorHandlers(
  executor: ExecutorUseCases,
  options: ImplementOptions,
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
      ) =>
        respond(call, callback, 'ReportPlanFinishedStream', options, async () => {
          const { runId, plan } = await readPlanStream(call);
          return { run: toRun(await executor.planFinished(runId, plan), undefined) };
        }),
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
  call: grpc.ServerReadableStream<runsV1.ReportPlanFinishedStreamRequest__Output, unknown>,
): Promise<{ runId: string; plan: Buffer }> {
  const { first, data } = await headerThenData(call, RUN_ID);
  if (!first.runId) {
    throw invalidAttribute('RUNS_INVALID_STREAM', '/run_id', 'the first message must carry run_id');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of data) {
    size += chunk.length;
    if (size > MAX_PLAN_BYTES) {
      throw tooLarge(
        'RUNS_PLAN_TOO_LARGE',
        `the plan JSON is larger than ${MAX_PLAN_BYTES / 1024 / 1024} MiB`,
      );
    }
    chunks.push(chunk);
  }
  return { runId: first.runId, plan: Buffer.concat(chunks) };
}
