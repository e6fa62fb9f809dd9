import type { policysetsV1 } from '@policyhub/contracts';
import { isUniqueViolation, pageInfo, pageWindow } from '@policyhub/db';
import { invalidAttribute, newId, notFound } from '@policyhub/errors';
import { enqueueEvent, TOPICS } from '@policyhub/events';
import type { Handlers } from '@policyhub/grpc-runtime';
import { AdminOrgsLookup } from '../clients/admin-orgs-lookup.js';
import { isForeignKeyViolation } from '../db/foreign-key.js';
import { type OrganizationRef, organizationOfRow } from '../db/organization-scope.js';
import {
  PolicySetRepository,
  type RelationshipName,
  toPolicySetFields,
} from '../db/policy-set-repository.js';
import type { PolicySetsDeps } from '../deps.js';
import { canManagePolicies, requireManagePolicies } from '../domain/access.js';
import {
  checkFreeTierPolicyCount,
  checkFreeTierSetCount,
  checkFreeTierVcsRepo,
} from '../domain/free-tier.js';
import { resolveNewPolicySet, resolvePolicySetUpdate } from '../domain/policy-set-rules.js';
import { toPolicySet } from './mappers.js';
import { requireOrganization } from './policies.js';
import { createInput, kindOf, referencedIds, updateInput } from './policy-set-input.js';
import type { RelationshipRpc } from './policy-set-relationships.js';
import {
  bodyRelationshipPointer,
  checkPolicyReferences,
  checkTenancyReferences,
} from './reference-checks.js';
import { visiblePolicySet } from './visible-policy-set.js';

type CrudHandlers = Omit<Handlers<policysetsV1.PolicySetsHandlers>, RelationshipRpc>;

const nameTaken = () => invalidAttribute('POLICY_SETS_NAME_TAKEN', 'name', 'Name has already been taken');
const policyGone = () =>
  invalidAttribute('POLICY_SETS_POLICY_NOT_FOUND', 'policies', 'Policy not found (it was just deleted)');

const RELATIONSHIP_ORDER: RelationshipName[] = ['policies', 'workspaces', 'projects', 'workspaceExclusions'];

/** Create, read, update and delete of policy sets (relationship endpoints: policy-set-relationships.ts). */
export function policySetHandlers({ db, relay, clients }: PolicySetsDeps): CrudHandlers {
  const repo = new PolicySetRepository(db);
  const lookup = new AdminOrgsLookup(clients);

  return {
    async CreatePolicySet(req, { principal }) {
      requireManagePolicies(principal, req.organization);
      const org = await lookup.organization(principal, req.organization);
      // The id admin-orgs reports now; a member's principal must name the same organization.
      const organization: OrganizationRef = { name: req.organization, id: org.id };
      if (!canManagePolicies(principal, req.organization, org.id)) throw notFound();
      const refs = referencedIds(req);
      const fields = resolveNewPolicySet(createInput(req), {
        policyCount: refs.policies?.length ?? 0,
        workspaces: refs.workspaces,
        projects: refs.projects,
      });
      if (org.isFreeTier) {
        checkFreeTierVcsRepo(fields.vcsRepo !== null);
        checkFreeTierPolicyCount(refs.policies?.length ?? 0);
      }
      await checkTenancyReferences(lookup, req.organization, refs, bodyRelationshipPointer);
      const id = newId('polset');
      try {
        await db.transaction(async (tx) => {
          const r = new PolicySetRepository(tx);
          if (org.isFreeTier) {
            await r.lockOrganization(organization);
            checkFreeTierSetCount(await r.countInOrganization(organization));
          }
          await checkPolicyReferences(
            tx,
            organization,
            fields.kind,
            refs.policies,
            bodyRelationshipPointer('policies'),
          );
          await r.insert(id, organization, fields);
          await r.lockTenancyMembers(refs);
          for (const name of RELATIONSHIP_ORDER) await r.addMembers(id, name, refs[name] ?? []);
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken();
        if (isForeignKeyViolation(err)) throw policyGone();
        throw err;
      }
      return { policySet: toPolicySet((await repo.get(id))!) };
    },

    async GetPolicySet(req, { principal }) {
      return { policySet: toPolicySet(await visiblePolicySet(repo, principal, req.id)) };
    },

    async ListPolicySets(req, { principal }) {
      const organization = await requireOrganization(lookup, principal, req.organization);
      const w = pageWindow(req.page);
      const { rows, total } = await repo.list(
        organization,
        { search: req.searchName, kind: kindOf(req.kind), versioned: req.versioned ?? null },
        w.size,
        w.offset,
      );
      return { policySets: rows.map(toPolicySet), page: pageInfo(w, total) };
    },

    async UpdatePolicySet(req, { principal }) {
      const current = await visiblePolicySet(repo, principal, req.id);
      const input = updateInput(req);
      const refs = referencedIds(req);
      const resolve = (row: typeof current) =>
        resolvePolicySetUpdate(toPolicySetFields(row), input, {
          policyCount: refs.policies?.length ?? row.policy_ids.length,
          workspaces: refs.workspaces,
          projects: refs.projects,
        });
      // Cheap rules first (no I/O), then entitlements and references, then the locked write.
      resolve(current);
      if (input.vcsRepo || refs.policies) {
        const org = await lookup.organization(principal, current.organization);
        if (org.isFreeTier) {
          checkFreeTierVcsRepo(Boolean(input.vcsRepo));
          checkFreeTierPolicyCount(refs.policies?.length ?? 0);
        }
      }
      await checkTenancyReferences(lookup, current.organization, refs, bodyRelationshipPointer);
      try {
        await db.transaction(async (tx) => {
          const r = new PolicySetRepository(tx);
          const locked = await r.get(current.id, { forUpdate: true });
          if (!locked) throw notFound();
          const fields = resolve(locked);
          await checkPolicyReferences(
            tx,
            organizationOfRow(locked),
            fields.kind,
            refs.policies,
            bodyRelationshipPointer('policies'),
          );
          await r.update(locked.id, fields);
          await r.lockTenancyMembers(refs);
          for (const name of RELATIONSHIP_ORDER) {
            const ids = refs[name];
            if (ids) await r.replaceMembers(locked.id, name, ids);
          }
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken();
        if (isForeignKeyViolation(err)) throw policyGone();
        throw err;
      }
      return { policySet: toPolicySet((await repo.get(current.id))!) };
    },

    async DeletePolicySet(req, { principal }) {
      const set = await visiblePolicySet(repo, principal, req.id);
      const deleted = await db.transaction(async (tx) => {
        // Versions and relationships go with the row (ON DELETE CASCADE); storage drops the archives.
        if (!(await new PolicySetRepository(tx).delete(set.id))) return false;
        await enqueueEvent(tx, TOPICS.policySetDeleted, set.id, {
          organization: set.organization,
          policySetId: set.id,
        });
        return true;
      });
      if (!deleted) throw notFound();
      await relay.flushWithin();
      return {};
    },

    async BatchGetPolicySets(req, { principal }) {
      const rows = await repo.getMany(req.ids);
      return {
        policySets: rows
          .filter((r) => canManagePolicies(principal, r.organization, r.organization_id))
          .map(toPolicySet),
      };
    },
  };
}
