import type * as grpc from '@grpc/grpc-js';
import { contracts } from '@policyhub/contracts';
import { implement } from '@policyhub/grpc-runtime';
import type { ServiceDeps } from '@policyhub/service-kit';
import { commentHandlers } from './rpc/comments.js';
import { configurationVersionHandlers } from './rpc/configuration-versions.js';
import { evaluatorHandlers } from './rpc/evaluator.js';
import { executorHandlers } from './rpc/executor.js';
import { planHandlers } from './rpc/plans.js';
import { policyCheckHandlers } from './rpc/policy-checks.js';
import { runHandlers } from './rpc/runs.js';
import { CommentWorkflows } from './workflows/comments.js';
import { ConfigurationVersionWorkflows } from './workflows/configuration-versions.js';
import type { WorkflowContext } from './workflows/context.js';
import { EvaluatorWorkflows } from './workflows/evaluator.js';
import { ExecutorWorkflows } from './workflows/executor.js';
import { PlanWorkflows } from './workflows/plans.js';
import { PolicyCheckWorkflows } from './workflows/policy-checks.js';
import { RunWorkflows } from './workflows/runs.js';

/** Adds every runs gRPC service to an unbound server (tests bind it on port 0). */
export function registerRuns(server: grpc.Server, deps: ServiceDeps, ctx: WorkflowContext): void {
  const v1 = contracts().policyhub.runs.v1;
  const opts = { logger: deps.logger, isUnavailable: deps.isUnavailable, auth: deps.auth };
  // Evaluators and executors hold their own tokens, good for their API only (ADR 0009).
  const evaluatorOpts = { ...opts, allow: ['evaluator'] as const };
  const executorOpts = { ...opts, allow: ['executor'] as const };
  server.addService(v1.Runs.service, implement(runHandlers(new RunWorkflows(ctx)), opts));
  server.addService(v1.Comments.service, implement(commentHandlers(new CommentWorkflows(ctx)), opts));
  server.addService(
    v1.PolicyChecks.service,
    implement(policyCheckHandlers(new PolicyCheckWorkflows(ctx)), opts),
  );
  server.addService(
    v1.ConfigurationVersions.service,
    implement(configurationVersionHandlers(new ConfigurationVersionWorkflows(ctx), opts), opts),
  );
  server.addService(v1.Plans.service, implement(planHandlers(new PlanWorkflows(ctx), opts), opts));
  server.addService(
    v1.RunExecutor.service,
    implement(executorHandlers(new ExecutorWorkflows(ctx), opts), executorOpts),
  );
  server.addService(
    v1.PolicyEvaluator.service,
    implement(evaluatorHandlers(new EvaluatorWorkflows(ctx), opts), evaluatorOpts),
  );
}
