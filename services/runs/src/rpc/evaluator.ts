import type { runsV1 } from '@policyhub/contracts';
import type { Handlers } from '@policyhub/grpc-runtime';
import type { EvaluatorWorkflows } from '../workflows/evaluator.js';
import { toLease } from './mappers.js';

export function evaluatorHandlers(evaluator: EvaluatorWorkflows): Handlers<runsV1.PolicyEvaluatorHandlers> {
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
        planJson: input.planJson,
        policySets: input.policySets.map((s) => ({
          id: s.id,
          name: s.name,
          kind: s.kind,
          parameters: s.parameters,
          policies: s.policies.map((p) => ({
            id: p.id,
            name: p.name,
            enforcementLevel: p.enforcementLevel,
            code: p.code,
          })),
          archive: s.archive ?? Buffer.alloc(0),
          versionId: s.versionId,
        })),
      };
    },
    async CompletePolicyCheck(req) {
      const status = await evaluator.complete(req.policyCheckId, req.leaseToken, {
        outcomes: req.outcomes.map((o) => ({
          policySetId: o.policySetId,
          policyName: o.policyName,
          passed: o.passed,
          enforcementLevel: o.enforcementLevel,
        })),
        report: req.report,
        durationMs: Number(req.durationMs) || 0,
        engineDetailsJson: req.engineDetailsJson,
      });
      return { status };
    },
    async FailPolicyCheck(req) {
      await evaluator.fail(req.policyCheckId, req.leaseToken, req.errorMessage, req.report);
      return {};
    },
  };
}
