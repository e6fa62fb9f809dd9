import { enforcementLevel, type policysetsV1 } from '@policyhub/contracts';
import type { Handlers } from '@policyhub/grpc-runtime';
import type { PolicyInput } from '../domain/policy-rules.js';
import type { PolicyUseCases } from '../use-cases/policies.js';
import { toPolicy } from './mappers.js';
import { change, kindOf } from './policy-set-input.js';

const levelOf = (level: policysetsV1.EnforcementLevel__Output | undefined) =>
  level === undefined ? undefined : enforcementLevel.toWord(level);

const createInput = (req: policysetsV1.CreatePolicyRequest__Output): PolicyInput => ({
  name: req.name,
  description: req.description,
  kind: kindOf(req.kind),
  query: req.query,
  enforcementLevel: levelOf(req.enforcementLevel),
  enforcePath: req.enforcePath,
  enforceMode: levelOf(req.enforceMode),
});

const updateInput = (req: policysetsV1.UpdatePolicyRequest__Output): PolicyInput => ({
  name: req.name,
  description: change(req.description),
  kind: kindOf(req.kind),
  query: change(req.query),
  enforcementLevel: levelOf(req.enforcementLevel),
  enforcePath: change(req.enforcePath),
  enforceMode: levelOf(req.enforceMode),
});

export function policyHandlers(policies: PolicyUseCases): Handlers<policysetsV1.PoliciesHandlers> {
  return {
    async CreatePolicy(req, { principal }) {
      return { policy: toPolicy(await policies.create(principal, req.organization, createInput(req))) };
    },

    async GetPolicy(req, { principal }) {
      return { policy: toPolicy(await policies.get(principal, req.id)) };
    },

    async ListPolicies(req, { principal }) {
      const filter = { search: req.searchName, kind: kindOf(req.kind) };
      const res = await policies.list(principal, req.organization, filter, req.page);
      return { policies: res.policies.map(toPolicy), page: res.page };
    },

    async UpdatePolicy(req, { principal }) {
      return { policy: toPolicy(await policies.update(principal, req.id, updateInput(req))) };
    },

    async DeletePolicy(req, { principal }) {
      await policies.delete(principal, req.id);
      return {};
    },

    async UploadPolicyCode(req, { principal }) {
      return { policy: toPolicy(await policies.uploadCode(principal, req.id, req.code)) };
    },

    async DownloadPolicyCode(req, { principal }) {
      return { code: await policies.downloadCode(principal, req.id) };
    },

    async BatchGetPolicies(req, { principal }) {
      return { policies: (await policies.batchGet(principal, req.ids)).map(toPolicy) };
    },
  };
}
