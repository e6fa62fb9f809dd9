import type * as grpc from '@grpc/grpc-js';
import { contracts } from '@policyhub/contracts';
import { implement } from '@policyhub/grpc-runtime';
import type { ServiceDeps } from '@policyhub/service-kit';
import type { Deps } from './deps.js';
import { commentHandlers } from './rpc/comments.js';
import { configurationVersionHandlers } from './rpc/configuration-versions.js';
import { evaluatorHandlers } from './rpc/evaluator.js';
import { executorHandlers } from './rpc/executor.js';
import { planHandlers } from './rpc/plans.js';
import { policyCheckHandlers } from './rpc/policy-checks.js';
import { runHandlers } from './rpc/runs.js';
import { taskStageHandlers } from './rpc/task-stages.js';
import { CommentUseCases } from './use-cases/comments.js';
import { ConfigurationVersionUseCases } from './use-cases/configuration-versions.js';
import { EvaluatorUseCases } from './use-cases/evaluator.js';
import { ExecutorUseCases } from './use-cases/executor.js';
import { PlanUseCases } from './use-cases/plans.js';
import { PolicyCheckUseCases } from './use-cases/policy-checks.js';
import { RunUseCases } from './use-cases/runs.js';
import { TaskStageUseCases } from './use-cases/task-stages.js';
import { RunControlUseCases } from './use-cases/run-control.js';

/** Adds every runs gRPC service to an unbound server (tests bind it on port 0). */
export function registerRuns(server: grpc.Server, service: ServiceDeps, deps: Deps): void {
  const v1 = contracts().policyhub.runs.v1;
  const opts = { logger: service.logger, isUnavailable: service.isUnavailable, auth: service.auth };
  // Evaluators and executors hold their own tokens, good for their API only (ADR 0009).
  const evaluatorOpts = { ...opts, allow: ['evaluator'] as const };
  const executorOpts = { ...opts, allow: ['executor'] as const };
  server.addService(
    v1.Runs.service,
    implement(runHandlers(new RunUseCases(deps), new RunControlUseCases(deps)), opts),
  );
  server.addService(v1.Comments.service, implement(commentHandlers(new CommentUseCases(deps)), opts));
  server.addService(
    v1.PolicyChecks.service,
    implement(policyCheckHandlers(new PolicyCheckUseCases(deps)), opts),
  );
  server.addService(v1.TaskStages.service, implement(taskStageHandlers(new TaskStageUseCases(deps)), opts));
  server.addService(
    v1.ConfigurationVersions.service,
    implement(
      configurationVersionHandlers(new ConfigurationVersionUseCases(deps), deps.uploadTokens, opts),
      opts,
    ),
  );
  server.addService(v1.Plans.service, implement(planHandlers(new PlanUseCases(deps), opts), opts));
  server.addService(
    v1.RunExecutor.service,
    implement(executorHandlers(new ExecutorUseCases(deps), opts), executorOpts),
  );
  server.addService(
    v1.PolicyEvaluator.service,
    implement(evaluatorHandlers(new EvaluatorUseCases(deps), opts), evaluatorOpts),
  );
}
