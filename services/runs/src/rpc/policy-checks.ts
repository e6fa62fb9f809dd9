import type { runsV1 } from '@policyhub/contracts';
import type { Handlers } from '@policyhub/grpc-runtime';
import type { PolicyCheckUseCases } from '../use-cases/policy-checks.js';
import { toPolicyCheck } from './mappers.js';

export function policyCheckHandlers(checks: PolicyCheckUseCases): Handlers<runsV1.PolicyChecksHandlers> {
  return {
    async GetPolicyCheck(req, { principal }) {
      return { policyCheck: toPolicyCheck(await checks.get(principal, req.id), principal) };
    },
    async ListRunPolicyChecks(req, { principal }) {
      const res = await checks.listByRun(principal, req.runId, req.page);
      return { policyChecks: res.checks.map((c) => toPolicyCheck(c, principal)), page: res.page ?? null };
    },
    async OverridePolicyCheck(req, { principal }) {
      return { policyCheck: toPolicyCheck(await checks.override(principal, req.id, req.comment), principal) };
    },
    async GetPolicyCheckOutput(req, { principal }) {
      const output = await checks.output(principal, req.id);
      return { hasOutput: output !== null, output: output ?? undefined };
    },
  };
}
