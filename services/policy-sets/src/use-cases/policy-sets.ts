import { isUniqueViolation, pageInfo, pageWindow } from '@policyhub/db';
import { invalidAttribute, newId, notFound } from '@policyhub/errors';
import { auditActorOf, changedAttributes, enqueueEvent, TOPICS } from '@policyhub/events';
import type { Principal } from '@policyhub/permissions';
import { isForeignKeyViolation } from '../db/foreign-key.js';
import { type OrganizationRef, organizationOfRow } from '../db/organization-scope.js';
import {
  type PolicySetFilter,
  type PolicySetRecord,
  PolicySetRepository,
  type PolicySetRow,
  type RelationshipName,
  toPolicySetFields,
} from '../db/policy-set-repository.js';
import type { Deps } from '../deps.js';
import { recordAudit } from '../events/audit.js';
import { canManagePolicies, requireManagePolicies } from '../domain/access.js';
import {
  checkFreeTierPolicyCount,
  checkFreeTierSetCount,
  checkFreeTierVcsRepo,
} from '../domain/free-tier.js';
import {
  type PolicySetInput,
  resolveNewPolicySet,
  resolvePolicySetUpdate,
} from '../domain/policy-set-rules.js';
import { managedOrganization } from './managed-organization.js';
import type { PageRequest } from './page.js';
import {
  bodyRelationshipPointer,
  checkPolicyReferences,
  checkTenancyReferences,
  type ReferencedIds,
} from './reference-checks.js';
import { visiblePolicySet, withLinks } from './visible-policy-set.js';

const nameTaken = () => invalidAttribute('POLICY_SETS_NAME_TAKEN', 'name', 'Name has already been taken');
const policyGone = () =>
  invalidAttribute('POLICY_SETS_POLICY_NOT_FOUND', 'policies', 'Policy not found (it was just deleted)');

const RELATIONSHIP_ORDER: RelationshipName[] = ['policies', 'workspaces', 'projects', 'workspaceExclusions'];

/** How many items each relationship given in the request holds (`policies_count`, …): ids, not values. */
const relationshipCounts = (refs: ReferencedIds): Record<string, number | undefined> =>
  Object.fromEntries(
    RELATIONSHIP_ORDER.map((name) => [
      `${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}_count`,
      refs[name]?.length,
    ]),
  );

/**
 * Create, read, update and delete of policy sets (the relationship endpoints:
 * policy-set-relationships.ts). Everything needs manage-policies in the set's organization;
 * otherwise NOT_FOUND, like a missing set.
 */
export class PolicySetUseCases {
  private readonly sets: PolicySetRepository;

  constructor(private readonly deps: Deps) {
    this.sets = new PolicySetRepository(deps.db);
  }

  /** A new set with its relationships (`refs`), all checked first, written in one transaction. */
  async create(
    principal: Principal | undefined,
    organizationName: string,
    input: PolicySetInput,
    refs: ReferencedIds,
  ): Promise<PolicySetRow> {
    const { db, tenancy } = this.deps;
    requireManagePolicies(principal, organizationName);
    const org = await tenancy.organization(principal, organizationName);
    // The id admin-orgs reports now; a member's principal must name the same organization.
    const organization: OrganizationRef = { name: organizationName, id: org.id };
    if (!canManagePolicies(principal, organizationName, org.id)) throw notFound();
    const fields = resolveNewPolicySet(input, {
      policyCount: refs.policies?.length ?? 0,
      workspaces: refs.workspaces,
      projects: refs.projects,
    });
    if (org.isFreeTier) {
      checkFreeTierVcsRepo(fields.vcsRepo !== null);
      checkFreeTierPolicyCount(refs.policies?.length ?? 0);
    }
    await checkTenancyReferences(tenancy, organizationName, refs, bodyRelationshipPointer);
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
        await recordAudit(tx, {
          organization,
          actor: auditActorOf(principal),
          resource: { type: 'policy_set', id, action: 'create' },
          meta: { name: fields.name, kind: fields.kind, global: fields.global, ...relationshipCounts(refs) },
        });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken();
      if (isForeignKeyViolation(err)) throw policyGone();
      throw err;
    }
    return this.read(id);
  }

  async get(principal: Principal | undefined, id: string): Promise<PolicySetRow> {
    const [set] = await withLinks(this.sets, [await visiblePolicySet(this.sets, principal, id)]);
    return set!;
  }

  async list(
    principal: Principal | undefined,
    organizationName: string,
    filter: PolicySetFilter,
    page: PageRequest,
  ) {
    const organization = await managedOrganization(this.deps.tenancy, principal, organizationName);
    const w = pageWindow(page);
    const { rows, total } = await this.sets.list(organization, filter, w.size, w.offset);
    return { policySets: rows, page: pageInfo(w, total) };
  }

  /**
   * Changes the attributes given in `input` and replaces the relationships given in `refs`. Cheap
   * rules first (no I/O), then entitlements and references, then the write on the locked row.
   */
  async update(
    principal: Principal | undefined,
    id: string,
    input: PolicySetInput,
    refs: ReferencedIds,
  ): Promise<PolicySetRow> {
    const { db, tenancy } = this.deps;
    const current = await visiblePolicySet(this.sets, principal, id);
    const resolve = async (repo: PolicySetRepository, row: PolicySetRecord) =>
      resolvePolicySetUpdate(toPolicySetFields(row), input, {
        policyCount: refs.policies?.length ?? (await policyCountOf(repo, row.id)),
        workspaces: refs.workspaces,
        projects: refs.projects,
      });
    await resolve(this.sets, current);
    if (input.vcsRepo || refs.policies) {
      const org = await tenancy.organization(principal, current.organization);
      if (org.isFreeTier) {
        checkFreeTierVcsRepo(Boolean(input.vcsRepo));
        checkFreeTierPolicyCount(refs.policies?.length ?? 0);
      }
    }
    await checkTenancyReferences(tenancy, current.organization, refs, bodyRelationshipPointer);
    try {
      await db.transaction(async (tx) => {
        const r = new PolicySetRepository(tx);
        const locked = await r.get(current.id, { forUpdate: true });
        if (!locked) throw notFound();
        const fields = await resolve(r, locked);
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
        await recordAudit(tx, {
          organization: organizationOfRow(locked),
          actor: auditActorOf(principal),
          resource: { type: 'policy_set', id: locked.id, action: 'update' },
          meta: { name: fields.name, changed: changedAttributes(input), ...relationshipCounts(refs) },
        });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken();
      if (isForeignKeyViolation(err)) throw policyGone();
      throw err;
    }
    return this.read(current.id);
  }

  /** Deletes the set with its versions and relationships; storage drops the archives on the event. */
  async delete(principal: Principal | undefined, id: string): Promise<void> {
    const set = await visiblePolicySet(this.sets, principal, id);
    const deleted = await this.deps.db.transaction(async (tx) => {
      // Versions and relationships go with the row (ON DELETE CASCADE).
      if (!(await new PolicySetRepository(tx).delete(set.id))) return false;
      await enqueueEvent(tx, TOPICS.policySetDeleted, set.id, {
        organization: set.organization,
        policySetId: set.id,
      });
      await recordAudit(tx, {
        organization: organizationOfRow(set),
        actor: auditActorOf(principal),
        resource: { type: 'policy_set', id: set.id, action: 'destroy' },
        meta: { name: set.name },
      });
      return true;
    });
    if (!deleted) throw notFound();
    await this.deps.relay.flushWithin();
  }

  /** The sets among `ids` the caller may manage (others are left out, as if missing). */
  async batchGet(principal: Principal | undefined, ids: readonly string[]): Promise<PolicySetRow[]> {
    const rows = await this.sets.getMany(ids);
    const visible = rows.filter((r) => canManagePolicies(principal, r.organization, r.organization_id));
    return withLinks(this.sets, visible);
  }

  /** A set just written by this service, with its linked items. */
  private async read(id: string): Promise<PolicySetRow> {
    const set = await this.sets.get(id);
    if (!set) throw notFound();
    return (await withLinks(this.sets, [set]))[0]!;
  }
}

/** How many policies a set holds now (an update that does not replace them keeps them). */
async function policyCountOf(repo: PolicySetRepository, id: string): Promise<number> {
  return (await repo.links([id])).get(id)?.policy_ids.length ?? 0;
}
