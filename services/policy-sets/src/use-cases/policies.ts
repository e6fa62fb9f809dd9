import { isUniqueViolation, pageInfo, pageWindow } from '@policyhub/db';
import { invalidAttribute, newId, notFound, tooLarge } from '@policyhub/errors';
import { type AuditAct, auditActorOf, changedAttributes } from '@policyhub/events';
import type { Principal } from '@policyhub/permissions';
import { PolicyRepository, type PolicyRow, toPolicyFields } from '../db/policy-repository.js';
import { organizationOfRow } from '../db/organization-scope.js';
import type { Deps } from '../deps.js';
import { recordAudit } from '../events/audit.js';
import { canManagePolicies } from '../domain/access.js';
import {
  POLICY_CODE_MAX_BYTES,
  type PolicyInput,
  resolveNewPolicy,
  resolvePolicyUpdate,
} from '../domain/policy-rules.js';
import type { Kind } from '../domain/vocabulary.js';
import { managedOrganization } from './managed-organization.js';
import type { PageRequest } from './page.js';

const nameTaken = () =>
  invalidAttribute('POLICY_SETS_POLICY_NAME_TAKEN', 'name', 'Name has already been taken');

const policyAct = (principal: Principal | undefined, policy: PolicyRow, action: string): AuditAct => ({
  organization: organizationOfRow(policy),
  actor: auditActorOf(principal),
  resource: { type: 'policy', id: policy.id, action },
});

/** Individual policies and their code. Everything needs manage-policies in the policy's organization. */
export class PolicyUseCases {
  private readonly policies: PolicyRepository;

  constructor(private readonly deps: Deps) {
    this.policies = new PolicyRepository(deps.db);
  }

  async create(principal: Principal | undefined, organization: string, input: PolicyInput) {
    const org = await managedOrganization(this.deps.tenancy, principal, organization);
    const fields = resolveNewPolicy(input);
    const id = newId('pol');
    try {
      await this.deps.db.transaction(async (tx) => {
        await new PolicyRepository(tx).insert(id, org, fields);
        await recordAudit(tx, {
          organization: org,
          actor: auditActorOf(principal),
          resource: { type: 'policy', id, action: 'create' },
          meta: { name: fields.name, kind: fields.kind, enforcement_level: fields.enforcementLevel },
        });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken();
      throw err;
    }
    return (await this.policies.get(id))!;
  }

  /** A policy the caller may manage, else NOT_FOUND (hidden looks exactly like missing). */
  async get(principal: Principal | undefined, id: string): Promise<PolicyRow> {
    const policy = await this.policies.get(id);
    if (!policy || !canManagePolicies(principal, policy.organization, policy.organization_id))
      throw notFound();
    return policy;
  }

  async list(
    principal: Principal | undefined,
    organization: string,
    filter: { search: string; kind: Kind | undefined },
    page: PageRequest,
  ) {
    const org = await managedOrganization(this.deps.tenancy, principal, organization);
    const w = pageWindow(page);
    const { rows, total } = await this.policies.list(org, filter, w.size, w.offset);
    return { policies: rows, page: pageInfo(w, total) };
  }

  async update(principal: Principal | undefined, id: string, input: PolicyInput) {
    const current = await this.get(principal, id);
    const fields = resolvePolicyUpdate(toPolicyFields(current), input);
    try {
      await this.deps.db.transaction(async (tx) => {
        await new PolicyRepository(tx).update(current.id, fields);
        await recordAudit(tx, {
          ...policyAct(principal, current, 'update'),
          meta: {
            name: fields.name,
            changed: changedAttributes(input),
            enforcement_level: input.enforcementLevel ?? input.enforceMode,
          },
        });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken();
      throw err;
    }
    return (await this.policies.get(current.id))!;
  }

  async delete(principal: Principal | undefined, id: string): Promise<void> {
    const policy = await this.get(principal, id);
    // Sets holding it lose it with the row (ON DELETE CASCADE); their counts drop with it.
    await this.deps.db.transaction(async (tx) => {
      await new PolicyRepository(tx).delete(policy.id);
      await recordAudit(tx, { ...policyAct(principal, policy, 'destroy'), meta: { name: policy.name } });
    });
  }

  async uploadCode(principal: Principal | undefined, id: string, code: Uint8Array) {
    const policy = await this.get(principal, id);
    if (code.length > POLICY_CODE_MAX_BYTES) {
      throw tooLarge(
        'POLICY_SETS_POLICY_CODE_TOO_LARGE',
        `policy code is limited to ${POLICY_CODE_MAX_BYTES} bytes`,
      );
    }
    await this.deps.db.transaction(async (tx) => {
      await new PolicyRepository(tx).setCode(policy.id, Buffer.from(code));
      await recordAudit(tx, {
        ...policyAct(principal, policy, 'upload_code'),
        meta: { name: policy.name, bytes: code.length },
      });
    });
    return (await this.policies.get(policy.id))!;
  }

  /** The uploaded code; NOT_FOUND before the first upload, as upstream. */
  async downloadCode(principal: Principal | undefined, id: string): Promise<Buffer> {
    const policy = await this.get(principal, id);
    const code = await this.policies.getCode(policy.id);
    if (code === undefined) throw notFound();
    return code;
  }

  /** The policies among `ids` the caller may manage (others are left out, as if missing). */
  async batchGet(principal: Principal | undefined, ids: readonly string[]): Promise<PolicyRow[]> {
    const rows = await this.policies.getMany(ids);
    return rows.filter((r) => canManagePolicies(principal, r.organization, r.organization_id));
  }
}
