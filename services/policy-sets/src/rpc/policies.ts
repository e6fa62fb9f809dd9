import { enforcementLevel, type policysetsV1 } from '@policyhub/contracts';
import { isUniqueViolation, pageInfo, pageWindow } from '@policyhub/db';
import { invalidAttribute, newId, notFound, tooLarge } from '@policyhub/errors';
import type { Handlers, Principal } from '@policyhub/grpc-runtime';
import { AdminOrgsLookup } from '../clients/admin-orgs-lookup.js';
import type { OrganizationRef } from '../db/organization-scope.js';
import { PolicyRepository, toPolicyFields } from '../db/policy-repository.js';
import type { PolicySetsDeps } from '../deps.js';
import { canManagePolicies, requireManagePolicies } from '../domain/access.js';
import {
  POLICY_CODE_MAX_BYTES,
  type PolicyInput,
  resolveNewPolicy,
  resolvePolicyUpdate,
} from '../domain/policy-rules.js';
import { toPolicy } from './mappers.js';
import { change, kindOf } from './policy-set-input.js';

const nameTaken = () =>
  invalidAttribute('POLICY_SETS_POLICY_NAME_TAKEN', 'name', 'Name has already been taken');

/**
 * The organization of that name as the caller may manage it, with its immutable id. A member's
 * principal carries the id of the organization that holds the name (and proves it exists); site
 * admins pass every permission check, so for them the organization is looked up (404 if unknown).
 */
export async function requireOrganization(
  lookup: AdminOrgsLookup,
  principal: Principal | undefined,
  organization: string,
): Promise<OrganizationRef> {
  requireManagePolicies(principal, organization);
  const id = principal?.isSiteAdmin ? undefined : principal?.organizationIds?.get(organization);
  if (id) return { name: organization, id };
  return { name: organization, id: (await lookup.organization(principal, organization)).id };
}

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

export function policyHandlers({ db, clients }: PolicySetsDeps): Handlers<policysetsV1.PoliciesHandlers> {
  const repo = new PolicyRepository(db);
  const lookup = new AdminOrgsLookup(clients);
  const visiblePolicy = async (principal: Principal | undefined, id: string) => {
    const policy = await repo.get(id);
    if (!policy || !canManagePolicies(principal, policy.organization, policy.organization_id))
      throw notFound();
    return policy;
  };

  return {
    async CreatePolicy(req, { principal }) {
      const organization = await requireOrganization(lookup, principal, req.organization);
      const fields = resolveNewPolicy(createInput(req));
      const id = newId('pol');
      try {
        await repo.insert(id, organization, fields);
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken();
        throw err;
      }
      return { policy: toPolicy((await repo.get(id))!) };
    },

    async GetPolicy(req, { principal }) {
      return { policy: toPolicy(await visiblePolicy(principal, req.id)) };
    },

    async ListPolicies(req, { principal }) {
      const organization = await requireOrganization(lookup, principal, req.organization);
      const w = pageWindow(req.page);
      const { rows, total } = await repo.list(
        organization,
        { search: req.searchName, kind: kindOf(req.kind) },
        w.size,
        w.offset,
      );
      return { policies: rows.map(toPolicy), page: pageInfo(w, total) };
    },

    async UpdatePolicy(req, { principal }) {
      const current = await visiblePolicy(principal, req.id);
      const fields = resolvePolicyUpdate(toPolicyFields(current), updateInput(req));
      try {
        await repo.update(current.id, fields);
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken();
        throw err;
      }
      return { policy: toPolicy((await repo.get(current.id))!) };
    },

    async DeletePolicy(req, { principal }) {
      const policy = await visiblePolicy(principal, req.id);
      // Sets holding it lose it with the row (ON DELETE CASCADE); their counts drop with it.
      await repo.delete(policy.id);
      return {};
    },

    async UploadPolicyCode(req, { principal }) {
      const policy = await visiblePolicy(principal, req.id);
      if (req.code.length > POLICY_CODE_MAX_BYTES) {
        throw tooLarge(
          'POLICY_SETS_POLICY_CODE_TOO_LARGE',
          `policy code is limited to ${POLICY_CODE_MAX_BYTES} bytes`,
        );
      }
      await repo.setCode(policy.id, Buffer.from(req.code));
      return { policy: toPolicy((await repo.get(policy.id))!) };
    },

    async DownloadPolicyCode(req, { principal }) {
      const policy = await visiblePolicy(principal, req.id);
      return { code: (await repo.getCode(policy.id)) ?? undefined };
    },

    async BatchGetPolicies(req, { principal }) {
      const rows = await repo.getMany(req.ids);
      return {
        policies: rows
          .filter((r) => canManagePolicies(principal, r.organization, r.organization_id))
          .map(toPolicy),
      };
    },
  };
}
