import type * as grpc from '@grpc/grpc-js';
import type { runsV1 } from '@policyhub/contracts';
import {
  callerPrincipal,
  type Handlers,
  headerThenData,
  type ImplementOptions,
  respond,
  serveStream,
  streaming,
} from '@policyhub/grpc-runtime';
import type { PlanUseCases } from '../use-cases/plans.js';
import { toPlan, toRun } from './mappers.js';

type Options = ImplementOptions;

export function planHandlers(plans: PlanUseCases, options: Options): Handlers<runsV1.PlansHandlers> {
  return {
    async GetPlan(req, { principal }) {
      const plan = await plans.get(principal, req.id);
      return { plan: toPlan(plan, plans.logToken(principal, plan)) };
    },

    async ReadPlanLog(req, { principal }) {
      return plans.readLog(principal, req.token);
    },

    UploadPlanJson: streaming(
      (
        call: grpc.ServerReadableStream<runsV1.UploadPlanJsonRequest__Output, runsV1.UploadPlanJsonResponse>,
        callback: grpc.sendUnaryData<runsV1.UploadPlanJsonResponse>,
      ) =>
        respond(call, callback, 'UploadPlanJson', options, async () => {
          const principal = callerPrincipal(call, options);
          const { first, data } = await headerThenData(call, {
            field: 'planId',
            errorCode: 'RUNS_INVALID_STREAM',
          });
          const { plan, run } = await plans.uploadJson(
            principal,
            first.planId ?? '',
            data,
            () => call.cancelled,
          );
          return { plan: toPlan(plan, plans.logToken(principal, plan)), run: toRun(run, principal) };
        }),
    ),

    DownloadPlanJson: streaming(
      (
        call: grpc.ServerWritableStream<
          runsV1.DownloadPlanJsonRequest__Output,
          runsV1.DownloadPlanJsonResponse
        >,
      ) =>
        serveStream(call, 'DownloadPlanJson', options, () =>
          plans.openJson(callerPrincipal(call, options), call.request.id),
        ),
    ),
  };
}
