import type * as grpc from '@grpc/grpc-js';
import {
  type commonV1,
  declaredEnforcementLevel,
  evaluationEnforcementLevel,
  evaluationPolicyKind,
  evaluationPolicyResult,
  policyCheckStatus,
  type runsV1,
  toTimestamp,
} from '@policyhub/contracts';
import { type Handlers, type ImplementOptions, serveStream, streaming } from '@policyhub/grpc-runtime';
import type { ObjectInfo } from '../domain/ports.js';
import type { EvaluatorUseCases } from '../use-cases/evaluator.js';
import type { ArchiveDeclaration, PolicySetSnapshot } from '../domain/evaluation.js';
import { isPolicyEvaluationId } from '../use-cases/policy-evaluations.js';
import type { EngineParameters } from '../use-cases/set-parameters.js';
import { toLease } from './mappers.js';

export function evaluatorHandlers(
  evaluator: EvaluatorUseCases,
  options: ImplementOptions,
): Handlers<runsV1.PolicyEvaluatorHandlers> {
  return {
    async ClaimPolicyCheck(req) {
      const lease = await evaluator.claim(req.evaluatorId, req.leaseSeconds, req.includePolicyEvaluations);
      return lease ? { claimed: true, lease: toLease(lease) } : { claimed: false, lease: null };
    },
    async ExtendPolicyCheckLease(req) {
      return { lease: toLease(await evaluator.extend(req.policyCheckId, req.leaseToken, req.leaseSeconds)) };
    },
    async GetPolicyCheckInput(req) {
      if (isPolicyEvaluationId(req.policyCheckId)) {
        const input = await evaluator.evaluations.input(req.policyCheckId, req.leaseToken);
        return {
          policyCheckId: input.evaluation.id,
          runId: input.evaluation.run_id,
          organization: input.evaluation.organization,
          workspaceId: input.evaluation.workspace_id,
          plan: toReference(input.plan),
          run: {
            createdAt: toTimestamp(input.run.created_at),
            message: input.run.message,
            planOnly: input.run.plan_only,
            isDestroy: input.run.is_destroy,
            workspaceName: input.evaluation.workspace_name || undefined,
          },
          policySets: input.policySets.map(toEvaluationSet),
        };
      }
      const input = await evaluator.input(req.policyCheckId, req.leaseToken);
      return {
        policyCheckId: input.check.id,
        runId: input.check.run_id,
        organization: input.check.organization,
        workspaceId: input.check.workspace_id,
        plan: toReference(input.plan),
        run: {
          createdAt: toTimestamp(input.run.created_at),
          message: input.run.message,
          planOnly: input.run.plan_only,
          isDestroy: input.run.is_destroy,
        },
        policySets: input.policySets.map(toEvaluationSet),
      };
    },
    ReadPolicyCheckObject: streaming(
      (
        call: grpc.ServerWritableStream<
          runsV1.ReadPolicyCheckObjectRequest__Output,
          runsV1.ReadPolicyCheckObjectResponse
        >,
      ) =>
        serveStream(call, 'ReadPolicyCheckObject', options, () =>
          evaluator.readObject(call.request.policyCheckId, call.request.leaseToken, call.request.key),
        ),
    ),
    async CompletePolicyCheck(req) {
      if (isPolicyEvaluationId(req.policyCheckId)) {
        const { status, errorMessage } = await evaluator.evaluations.complete(
          req.policyCheckId,
          req.leaseToken,
          req.outcomes.map((o) => ({
            policySetId: o.policySetId,
            policyName: o.policyName,
            // An evaluator that does not send `result` said passed or failed.
            result:
              o.result === 'EVALUATION_POLICY_RESULT_UNSPECIFIED'
                ? o.passed
                  ? 'passed'
                  : 'failed'
                : evaluationPolicyResult.toWord(o.result),
            output: o.output.slice(0, 1000).map((line) => line.slice(0, 64 * 1024)),
            query: o.query ?? undefined,
            description: o.description ?? undefined,
          })),
        );
        return {
          status: EVALUATION_AS_CHECK_STATUS[status] ?? 'POLICY_CHECK_STATUS_ERRORED',
          errorMessage,
          evaluationStatus: status,
        };
      }
      // The reported enforcement levels are informational: the check's own levels count.
      const { status, errorMessage } = await evaluator.complete(req.policyCheckId, req.leaseToken, {
        outcomes: req.outcomes.map((o) => ({
          policySetId: o.policySetId,
          policyName: o.policyName,
          passed: o.passed,
        })),
        report: req.report,
        durationMs: req.durationMs,
        engineDetailsJson: req.engineDetailsJson,
      });
      return { status: policyCheckStatus.fromKnownWord(status), errorMessage };
    },
    async FailPolicyCheck(req) {
      await evaluator.fail(req.policyCheckId, req.leaseToken, req.errorMessage, req.report);
      return {};
    },
  };
}

const toReference = (o: ObjectInfo) => ({ key: o.key, sizeBytes: o.sizeBytes, sha256: o.sha256 });

/** The nearest check status of a decided evaluation (its own word is in `evaluation_status`). */
const EVALUATION_AS_CHECK_STATUS: Record<string, runsV1.PolicyCheckStatus> = {
  passed: 'POLICY_CHECK_STATUS_PASSED',
  failed: 'POLICY_CHECK_STATUS_HARD_FAILED',
  errored: 'POLICY_CHECK_STATUS_ERRORED',
};

const toEvaluationSet = (
  s: PolicySetSnapshot & { archive: ObjectInfo | undefined; parameters: EngineParameters },
) => ({
  id: s.id,
  name: s.name,
  kind: evaluationPolicyKind.fromKnownWord(s.kind),
  parameters: s.parameters.values,
  sensitiveParameters: s.parameters.sensitive,
  policies: s.policies.map((p) => ({
    id: p.id,
    name: p.name,
    enforcementLevel: evaluationEnforcementLevel.fromKnownWord(p.enforcementLevel),
    code: p.code || undefined,
    query: p.query || undefined,
    description: p.description || undefined,
  })),
  archive: s.archive ? toReference(s.archive) : null,
  versionId: s.versionId || undefined,
  policiesPath: s.policiesPath || undefined,
  policyToolVersion: s.toolVersion || undefined,
  declaration: s.declaration ? declarationMessage(s.declaration) : null,
});

/** The declaration storage recorded at upload, as the check's input carries it. */
const declarationMessage = (d: ArchiveDeclaration): commonV1.ArchiveDeclaration => ({
  root: d.root,
  configPath: d.configPath,
  policies: d.policies.map((p) => ({
    name: p.name,
    enforcementLevel: declaredEnforcementLevel.fromKnownWord(p.enforcementLevel),
    source: p.source || undefined,
    query: p.query || undefined,
    description: p.description || undefined,
  })),
  sentinelBlocksJson: d.sentinelBlocksJson || undefined,
});
