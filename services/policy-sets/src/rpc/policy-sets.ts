import type { policysetsV1 } from '@policyhub/contracts';
import type { Handlers } from '@policyhub/grpc-runtime';
import type { PolicySetUseCases } from '../use-cases/policy-sets.js';
import { toPolicySet } from './mappers.js';
import { createInput, kindOf, referencedIds, updateInput } from './policy-set-input.js';
import type { RelationshipRpc } from './policy-set-relationships.js';

type CrudHandlers = Omit<Handlers<policysetsV1.PolicySetsHandlers>, RelationshipRpc>;

/** Create, read, update and delete of policy sets (relationship endpoints: policy-set-relationships.ts). */
export function policySetHandlers(sets: PolicySetUseCases): CrudHandlers {
  return {
    async CreatePolicySet(req, { principal }) {
      const set = await sets.create(principal, req.organization, createInput(req), referencedIds(req));
      return { policySet: toPolicySet(set) };
    },

    async GetPolicySet(req, { principal }) {
      return { policySet: toPolicySet(await sets.get(principal, req.id)) };
    },

    async ListPolicySets(req, { principal }) {
      const filter = { search: req.searchName, kind: kindOf(req.kind), versioned: req.versioned ?? null };
      const res = await sets.list(principal, req.organization, filter, req.page);
      return { policySets: res.policySets.map(toPolicySet), page: res.page };
    },

    async UpdatePolicySet(req, { principal }) {
      const set = await sets.update(principal, req.id, updateInput(req), referencedIds(req));
      return { policySet: toPolicySet(set) };
    },

    async DeletePolicySet(req, { principal }) {
      await sets.delete(principal, req.id);
      return {};
    },

    async BatchGetPolicySets(req, { principal }) {
      return { policySets: (await sets.batchGet(principal, req.ids)).map(toPolicySet) };
    },
  };
}
