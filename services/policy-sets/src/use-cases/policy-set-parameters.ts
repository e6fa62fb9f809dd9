import { isUniqueViolation, pageInfo, pageWindow } from '@policyhub/db';
import { AppError, invalidAttribute, newId, notFound } from '@policyhub/errors';
import { auditActorOf } from '@policyhub/events';
import type { Principal } from '@policyhub/permissions';
import type { ParameterSealer } from '../crypto/parameter-keys.js';
import {
  type ParameterRow,
  PolicySetParameterRepository,
  type StoredParameter,
} from '../db/policy-set-parameter-repository.js';
import { PolicySetRepository } from '../db/policy-set-repository.js';
import { organizationOfRow } from '../db/organization-scope.js';
import type { Deps } from '../deps.js';
import { recordAudit } from '../events/audit.js';
import {
  type ParameterFields,
  type ParameterInput,
  resolveNewParameter,
  resolveParameterUpdate,
} from '../domain/parameter-rules.js';
import type { PageRequest } from './page.js';
import { visiblePolicySet } from './visible-policy-set.js';

const keyTaken = () =>
  invalidAttribute('POLICY_SETS_PARAMETER_KEY_TAKEN', 'key', 'Key has already been taken in this policy set');

const RESEAL_BATCH = 200;

/**
 * Parameters of a policy set (upstream `vars` of category `policy-set`). Everything needs
 * manage-policies in the set's organization. A sensitive value is stored only sealed and never
 * answered; it is opened only for evaluation (ApplicablePolicySetUseCases).
 */
export class PolicySetParameterUseCases {
  private readonly sets: PolicySetRepository;
  private readonly parameters: PolicySetParameterRepository;

  constructor(private readonly deps: Pick<Deps, 'db' | 'parameterSealer'>) {
    this.sets = new PolicySetRepository(deps.db);
    this.parameters = new PolicySetParameterRepository(deps.db);
  }

  async list(principal: Principal | undefined, policySetId: string, page: PageRequest) {
    const set = await visiblePolicySet(this.sets, principal, policySetId);
    const w = pageWindow(page);
    const { rows, total } = await this.parameters.list(set.id, w.size, w.offset);
    return { parameters: rows, page: pageInfo(w, total) };
  }

  async get(principal: Principal | undefined, policySetId: string, id: string): Promise<ParameterRow> {
    const set = await visiblePolicySet(this.sets, principal, policySetId);
    const row = await this.parameters.get(set.id, id);
    if (!row) throw notFound();
    return row;
  }

  async create(principal: Principal | undefined, policySetId: string, input: ParameterInput) {
    const set = await visiblePolicySet(this.sets, principal, policySetId);
    const fields = resolveNewParameter(input);
    const id = newId('var');
    try {
      await this.deps.db.transaction(async (tx) => {
        await new PolicySetParameterRepository(tx).insert(id, set.id, this.stored(id, fields));
        // The key and whether it is sensitive; never the value.
        await recordAudit(tx, {
          organization: organizationOfRow(set),
          actor: auditActorOf(principal),
          resource: { type: 'var', id, action: 'create' },
          meta: { policy_set_id: set.id, key: fields.key, sensitive: fields.sensitive },
        });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw keyTaken();
      throw err;
    }
    return (await this.parameters.get(set.id, id))!;
  }

  async update(principal: Principal | undefined, policySetId: string, id: string, input: ParameterInput) {
    const set = await visiblePolicySet(this.sets, principal, policySetId);
    const current = await this.parameters.get(set.id, id);
    if (!current) throw notFound();
    const currentFields: ParameterFields = {
      key: current.key,
      // A sensitive value is opened only when it is kept (it becomes sensitive-and-kept again).
      value: current.value ?? (input.value === undefined ? this.open(current) : ''),
      sensitive: current.sensitive,
    };
    const fields = resolveParameterUpdate(currentFields, input);
    try {
      await this.deps.db.transaction(async (tx) => {
        await new PolicySetParameterRepository(tx).update(current.id, this.stored(current.id, fields));
        await recordAudit(tx, {
          organization: organizationOfRow(set),
          actor: auditActorOf(principal),
          resource: { type: 'var', id: current.id, action: 'update' },
          meta: { policy_set_id: current.policy_set_id, key: fields.key, sensitive: fields.sensitive },
        });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw keyTaken();
      throw err;
    }
    return (await this.parameters.get(current.policy_set_id, current.id))!;
  }

  async delete(principal: Principal | undefined, policySetId: string, id: string): Promise<void> {
    const set = await visiblePolicySet(this.sets, principal, policySetId);
    await this.deps.db.transaction(async (tx) => {
      if (!(await new PolicySetParameterRepository(tx).delete(set.id, id))) throw notFound();
      await recordAudit(tx, {
        organization: organizationOfRow(set),
        actor: auditActorOf(principal),
        resource: { type: 'var', id, action: 'destroy' },
        meta: { policy_set_id: set.id },
      });
    });
  }

  /**
   * Re-seals values sealed with an older key with the current one (at start, after a rotation),
   * so the older key can then be dropped. Values whose key is no longer configured stay as they
   * are and are counted as `unreadable` (their ids only, never a value).
   */
  async resealWithCurrentKey(): Promise<{ resealed: number; unreadable: string[] }> {
    const sealer = this.deps.parameterSealer;
    const unreadable: string[] = [];
    let resealed = 0;
    if (!sealer) return { resealed, unreadable };
    let after = '';
    for (;;) {
      const rows = await this.parameters.sealedWithOtherKey(sealer.currentKeyId, after, RESEAL_BATCH);
      if (rows.length === 0) return { resealed, unreadable };
      for (const r of rows) {
        after = r.id;
        let value: string;
        try {
          value = sealer.open(r.id, r.sealed_value);
        } catch {
          unreadable.push(r.id);
          continue;
        }
        await this.parameters.reseal(r.id, r.sealed_value, sealer.seal(r.id, value));
        resealed++;
      }
    }
  }

  private stored(id: string, f: ParameterFields): StoredParameter {
    if (!f.sensitive) return { key: f.key, value: f.value, sealedValue: null, sensitive: false };
    return { key: f.key, value: null, sealedValue: this.sealer().seal(id, f.value), sensitive: true };
  }

  private open(row: ParameterRow): string {
    return this.sealer().open(row.id, row.sealed_value!);
  }

  private sealer(): ParameterSealer {
    if (this.deps.parameterSealer) return this.deps.parameterSealer;
    throw new AppError('unimplemented', 'POLICY_SETS_PARAMETER_KEY_NOT_CONFIGURED', [
      {
        title: 'not implemented',
        detail:
          'Sensitive parameters need POLICY_SET_PARAMETER_KEYS configured on the policy-sets service (docs/security.md)',
      },
    ]);
  }
}
