import type * as grpc from '@grpc/grpc-js';
import {
  evaluationEnforcementLevel,
  evaluationPolicyKind,
  policyCheckStatus,
  type runsV1,
  toTimestamp,
} from '@policyhub/contracts';
import { type Handlers, type ImplementOptions, serveStream, streaming } from '@policyhub/grpc-runtime';
import type { ObjectInfo } from '../domain/ports.js';
import type { EvaluatorUseCases } from '../use-cases/evaluator.js';
import { toLease } from './mappers.js';

export function evaluatorHandlers(
  evaluator: EvaluatorUseCases,
  options: ImplementOptions,
): Handlers<runsV1.PolicyEvaluatorHandlers> {
  return {
    async ClaimPolicyCheck(req) {
      const lease = await evaluator.claim(req.evaluatorId, req.leaseSeconds);
      return lease ? { claimed: true, lease: toLease(lease) } : { claimed: false, lease: null };
    },
    async ExtendPolicyCheckLease(req) {
      return { lease: toLease(await evaluator.extend(req.policyCheckId, req.leaseToken, req.leaseSeconds)) };
    },
    async GetPolicyCheckInput(req) {
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
        },
        policySets: input.policySets.map((s) => ({
          id: s.id,
          name: s.name,
          kind: evaluationPolicyKind.fromKnownWord(s.kind),
          parameters: s.parameters,
          policies: s.policies.map((p) => ({
            id: p.id,
            name: p.name,
            enforcementLevel: evaluationEnforcementLevel.fromKnownWord(p.enforcementLevel),
            code: p.code || undefined,
          })),
          archive: s.archive ? toReference(s.archive) : null,
          versionId: s.versionId || undefined,
          policiesPath: s.policiesPath || undefined,
        })),
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
