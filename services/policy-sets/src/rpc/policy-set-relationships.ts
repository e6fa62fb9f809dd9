import { organizationOfRow } from '../db/organization-scope.js';
import type { policysetsV1 } from '@policyhub/contracts';
import type { Queryable } from '@policyhub/db';
import { invalidAttribute, unprocessable } from '@policyhub/errors';
import type { Handlers, Principal } from '@policyhub/grpc-runtime';
import { AdminOrgsLookup } from '../clients/admin-orgs-lookup.js';
import { isForeignKeyViolation } from '../db/foreign-key.js';
import {
  PolicySetRepository,
  type PolicySetRow,
  type RelationshipName,
} from '../db/policy-set-repository.js';
import type { PolicySetsDeps } from '../deps.js';
import { checkFreeTierPolicyCount } from '../domain/free-tier.js';
import {
  checkPolicyReferences,
  checkTenancyReferences,
  relationshipEndpointPointer,
} from './reference-checks.js';
import { visiblePolicySet } from './visible-policy-set.js';

export type RelationshipRpc =
  | 'AddPolicies'
  | 'RemovePolicies'
  | 'AttachProjects'
  | 'DetachProjects'
  | 'AttachWorkspaces'
  | 'DetachWorkspaces'
  | 'AddWorkspaceExclusions'
  | 'RemoveWorkspaceExclusions';

type RelationshipHandlers = Pick<Handlers<policysetsV1.PolicySetsHandlers>, RelationshipRpc>;
// The eight relationship RPCs each have their own request message, all with the same fields.
type Request = policysetsV1.AddPoliciesRequest__Output;

const noPoliciesOnVcsSets = (set: PolicySetRow) => {
  if (set.vcs_repo) {
    throw unprocessable(
      'POLICY_SETS_VCS_SET_POLICIES',
      'The policies of a set with a VCS repository come from the repository',
    );
  }
};

const noAttachmentsOnGlobalSets = (what: 'projects' | 'workspaces') => (set: PolicySetRow) => {
  if (set.global) {
    throw unprocessable(
      'POLICY_SETS_GLOBAL_SET_ATTACHMENTS',
      `A global set applies to every workspace; it cannot be attached to or detached from individual ${what}`,
    );
  }
};

/**
 * The eight relationship endpoints. Each change runs in one transaction on the locked set, so
 * the restriction it checks (VCS repository, global) cannot change underneath it. Adding checks
 * every id in one batch; removing ids that are not members is a no-op.
 */
export function policySetRelationshipHandlers({ db, clients }: PolicySetsDeps): RelationshipHandlers {
  const lookup = new AdminOrgsLookup(clients);

  interface Change {
    relationship: RelationshipName;
    op: 'add' | 'remove';
    restriction?: (set: PolicySetRow) => void;
    /** Checks that need the caller (entitlements) or other services, before the transaction. */
    precheck?: (
      set: PolicySetRow,
      ids: string[],
      principal: Principal | undefined,
    ) => Promise<Precheck | undefined>;
    /** Checks against this service's own data, inside the transaction. */
    check?: (tx: Queryable, set: PolicySetRow, ids: string[], facts: Precheck | undefined) => Promise<void>;
  }
  interface Precheck {
    isFreeTier: boolean;
  }

  const change =
    ({ relationship, op, restriction, precheck, check }: Change) =>
    async (req: Request, { principal }: { principal: Principal | undefined }) => {
      const ids = [...new Set(req.ids)];
      const current = await visiblePolicySet(new PolicySetRepository(db), principal, req.policySetId);
      restriction?.(current);
      if (ids.length === 0) return {};
      const facts = await precheck?.(current, ids, principal);
      await db
        .transaction(async (tx) => {
          const repo = new PolicySetRepository(tx);
          const set = await visiblePolicySet(repo, principal, current.id, { forUpdate: true });
          restriction?.(set);
          await check?.(tx, set, ids, facts);
          if (op === 'add') await repo.addMembers(set.id, relationship, ids);
          else await repo.removeMembers(set.id, relationship, ids);
          await repo.touch(set.id);
        })
        .catch((err: unknown) => {
          // A policy deleted between the check and the insert.
          if (isForeignKeyViolation(err)) {
            throw invalidAttribute(
              'POLICY_SETS_POLICY_NOT_FOUND',
              'ids',
              'Policy not found (it was just deleted)',
            );
          }
          throw err;
        });
      return {};
    };

  const workspacesExist = async (set: PolicySetRow, ids: string[]) => {
    await checkTenancyReferences(lookup, set.organization, { workspaces: ids }, relationshipEndpointPointer);
    return undefined;
  };

  return {
    AddPolicies: change({
      relationship: 'policies',
      op: 'add',
      restriction: noPoliciesOnVcsSets,
      precheck: async (set, _ids, principal) => ({
        isFreeTier: (await lookup.organization(principal, set.organization)).isFreeTier,
      }),
      check: async (tx, set, ids, facts) => {
        await checkPolicyReferences(tx, organizationOfRow(set), set.kind, ids, 'ids');
        if (facts?.isFreeTier) checkFreeTierPolicyCount(new Set([...set.policy_ids, ...ids]).size, 'ids');
      },
    }),
    RemovePolicies: change({ relationship: 'policies', op: 'remove', restriction: noPoliciesOnVcsSets }),
    AttachProjects: change({
      relationship: 'projects',
      op: 'add',
      restriction: noAttachmentsOnGlobalSets('projects'),
      precheck: async (set, ids) => {
        await checkTenancyReferences(
          lookup,
          set.organization,
          { projects: ids },
          relationshipEndpointPointer,
        );
        return undefined;
      },
    }),
    DetachProjects: change({
      relationship: 'projects',
      op: 'remove',
      restriction: noAttachmentsOnGlobalSets('projects'),
    }),
    AttachWorkspaces: change({
      relationship: 'workspaces',
      op: 'add',
      restriction: noAttachmentsOnGlobalSets('workspaces'),
      precheck: workspacesExist,
    }),
    DetachWorkspaces: change({
      relationship: 'workspaces',
      op: 'remove',
      restriction: noAttachmentsOnGlobalSets('workspaces'),
    }),
    AddWorkspaceExclusions: change({
      relationship: 'workspaceExclusions',
      op: 'add',
      precheck: workspacesExist,
    }),
    RemoveWorkspaceExclusions: change({ relationship: 'workspaceExclusions', op: 'remove' }),
  };
}
