import type { policysetsV1 } from '@policyhub/contracts';
import type { Handlers } from '@policyhub/grpc-runtime';
import type { ParameterRow } from '../db/policy-set-parameter-repository.js';
import type { PolicySetParameterUseCases } from '../use-cases/policy-set-parameters.js';

/** A sensitive parameter leaves without its value. */
const toParameter = (r: ParameterRow): policysetsV1.PolicySetParameter => ({
  id: r.id,
  policySetId: r.policy_set_id,
  key: r.key,
  value: r.sensitive ? undefined : (r.value ?? ''),
  category: r.category,
  sensitive: r.sensitive,
});

export function policySetParameterHandlers(
  parameters: PolicySetParameterUseCases,
): Handlers<policysetsV1.PolicySetParametersHandlers> {
  return {
    async ListPolicySetParameters(req, { principal }) {
      const res = await parameters.list(principal, req.policySetId, req.page);
      return { parameters: res.parameters.map(toParameter), page: res.page };
    },

    async CreatePolicySetParameter(req, { principal }) {
      const input = { key: req.key, value: req.value, category: req.category, sensitive: req.sensitive };
      return { parameter: toParameter(await parameters.create(principal, req.policySetId, input)) };
    },

    async GetPolicySetParameter(req, { principal }) {
      return { parameter: toParameter(await parameters.get(principal, req.policySetId, req.id)) };
    },

    async UpdatePolicySetParameter(req, { principal }) {
      const input = { key: req.key, value: req.value, category: req.category, sensitive: req.sensitive };
      return { parameter: toParameter(await parameters.update(principal, req.policySetId, req.id, input)) };
    },

    async DeletePolicySetParameter(req, { principal }) {
      await parameters.delete(principal, req.policySetId, req.id);
      return {};
    },
  };
}
