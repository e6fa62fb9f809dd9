import type { Queryable } from '@policyhub/db';
import { invalidAttribute, unprocessable } from '@policyhub/errors';
import { auditActorOf } from '@policyhub/events';
import type { Principal } from '@policyhub/permissions';
import { isForeignKeyViolation } from '../db/foreign-key.js';
import { organizationOfRow } from '../db/organization-scope.js';
import {
  type PolicySetRecord,
  PolicySetRepository,
  type RelationshipName,
} from '../db/policy-set-repository.js';
import type { Deps } from '../deps.js';
import { recordAudit } from '../events/audit.js';
import { checkFreeTierPolicyCount } from '../domain/free-tier.js';
import {
  checkPolicyReferences,
  checkTenancyReferences,
  relationshipEndpointPointer,
} from './reference-checks.js';
import { visiblePolicySet } from './visible-policy-set.js';

/** The ten relationship changes of a set: a relationship and whether ids are added or removed. */
export interface RelationshipChange {
  relationship: RelationshipName;
  op: 'add' | 'remove';
}

interface Rules {
  restriction?: (set: PolicySetRecord) => void;
  /** Checks that need the caller (entitlements) or other services, before the transaction. */
  precheck?: (
    set: PolicySetRecord,
    ids: string[],
    principal: Principal | undefined,
  ) => Promise<Precheck | undefined>;
  /** Checks against this service's own data, inside the transaction. */
  check?: (tx: Queryable, set: PolicySetRecord, ids: string[], facts: Precheck | undefined) => Promise<void>;
}
interface Precheck {
  isFreeTier: boolean;
}

const noPoliciesOnVcsSets = (set: PolicySetRecord) => {
  if (set.vcs_repo) {
    throw unprocessable(
      'POLICY_SETS_VCS_SET_POLICIES',
      'The policies of a set with a VCS repository come from the repository',
    );
  }
};

const noAttachmentsOnGlobalSets = (what: 'projects' | 'workspaces') => (set: PolicySetRecord) => {
  if (set.global) {
    throw unprocessable(
      'POLICY_SETS_GLOBAL_SET_ATTACHMENTS',
      `A global set applies to every workspace; it cannot be attached to or detached from individual ${what}`,
    );
  }
};

/**
 * Adding and removing a set's policies, workspaces, projects and workspace exclusions. Each change
 * runs in one transaction on the locked set, so the restriction it checks (VCS repository, global)
 * cannot change underneath it. Adding checks every id in one batch; removing ids that are not
 * members is a no-op.
 */
export class PolicySetRelationshipUseCases {
  private readonly rules: Record<RelationshipName, Record<RelationshipChange['op'], Rules>>;

  constructor(private readonly deps: Deps) {
    const { tenancy } = deps;
    const exist =
      (refs: 'workspaces' | 'projects' | 'projectExclusions') =>
      async (set: PolicySetRecord, ids: string[]) => {
        await checkTenancyReferences(tenancy, set.organization, { [refs]: ids }, relationshipEndpointPointer);
        return undefined;
      };
    this.rules = {
      policies: {
        add: {
          restriction: noPoliciesOnVcsSets,
          precheck: async (set, _ids, principal) => ({
            isFreeTier: (await tenancy.organization(principal, set.organization)).isFreeTier,
          }),
          check: async (tx, set, ids, facts) => {
            await checkPolicyReferences(tx, organizationOfRow(set), set.kind, ids, 'ids');
            if (facts?.isFreeTier) {
              const held = (await new PolicySetRepository(tx).links([set.id])).get(set.id)?.policy_ids ?? [];
              checkFreeTierPolicyCount(new Set([...held, ...ids]).size, 'ids');
            }
          },
        },
        remove: { restriction: noPoliciesOnVcsSets },
      },
      projects: {
        add: { restriction: noAttachmentsOnGlobalSets('projects'), precheck: exist('projects') },
        remove: { restriction: noAttachmentsOnGlobalSets('projects') },
      },
      workspaces: {
        add: { restriction: noAttachmentsOnGlobalSets('workspaces'), precheck: exist('workspaces') },
        remove: { restriction: noAttachmentsOnGlobalSets('workspaces') },
      },
      workspaceExclusions: {
        add: { precheck: exist('workspaces') },
        remove: {},
      },
      projectExclusions: {
        add: { precheck: exist('projectExclusions') },
        remove: {},
      },
    };
  }

  async change(
    principal: Principal | undefined,
    policySetId: string,
    { relationship, op }: RelationshipChange,
    requestedIds: readonly string[],
  ): Promise<void> {
    const { restriction, precheck, check } = this.rules[relationship][op];
    const { db } = this.deps;
    const ids = [...new Set(requestedIds)];
    const current = await visiblePolicySet(new PolicySetRepository(db), principal, policySetId);
    restriction?.(current);
    if (ids.length === 0) return;
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
        const words = relationship.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
        await recordAudit(tx, {
          organization: organizationOfRow(set),
          actor: auditActorOf(principal),
          resource: { type: 'policy_set', id: set.id, action: `${op}_${words}` },
          meta: { name: set.name, ids },
        });
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
  }
}
