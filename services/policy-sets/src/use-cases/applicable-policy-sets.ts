import { conflict } from '@policyhub/errors';
import {
  type ApplicablePolicyRow,
  type ApplicableQuery,
  type ApplicableSetRow,
  findApplicablePolicySets,
} from '../db/applicable-policy-sets-query.js';
import type { OrganizationRef } from '../db/organization-scope.js';
import { PolicySetParameterRepository } from '../db/policy-set-parameter-repository.js';
import type { Deps } from '../deps.js';

/** A parameter as the engine gets it (sensitive values opened by parameterValues only). */
export interface ApplicableParameter {
  key: string;
  value: string;
  sensitive: boolean;
}

/** An applicable set with its individual policies (none for a versioned set) and its parameters. */
export type ApplicablePolicySetRow = Omit<ApplicableSetRow, 'parameters'> & {
  policies: ApplicablePolicyRow[];
  parameters: ApplicableParameter[];
};

/**
 * For the runs service (an internal call, no principal): the sets applying to a workspace with
 * their current contents, individual policies with their code or the current version's archive.
 */
export class ApplicablePolicySetUseCases {
  constructor(private readonly deps: Pick<Deps, 'db' | 'parameterSealer'>) {}

  async find(query: ApplicableQuery): Promise<ApplicablePolicySetRow[]> {
    const { sets, policies } = await findApplicablePolicySets(this.deps.db, query);
    const bySet = new Map<string, ApplicablePolicyRow[]>();
    for (const p of policies) {
      const list = bySet.get(p.policy_set_id) ?? [];
      list.push(p);
      bySet.set(p.policy_set_id, list);
    }
    return sets.map((s) => ({
      ...s,
      policies: bySet.get(s.id) ?? [],
      // Keys and plain values only: a sensitive value is opened by parameterValues, at evaluation.
      parameters: s.parameters.map((r) => ({
        key: r.key,
        value: r.sensitive ? '' : (r.value ?? ''),
        sensitive: r.sensitive,
      })),
    }));
  }

  /**
   * The current parameters of the given sets of `organization`, sensitive values opened: for the
   * engine only, when an evaluator takes a check (runs passes them on and keeps none). A value
   * that cannot be opened fails the call: a set is never evaluated without its parameter.
   */
  async parameterValues(
    organization: OrganizationRef,
    policySetIds: readonly string[],
  ): Promise<Array<{ policySetId: string; parameters: ApplicableParameter[] }>> {
    const rows = await new PolicySetParameterRepository(this.deps.db).ofSets(organization, policySetIds);
    const bySet = new Map<string, ApplicableParameter[]>();
    for (const r of rows) {
      const list = bySet.get(r.policy_set_id) ?? [];
      list.push({ key: r.key, value: this.valueOf(r), sensitive: r.sensitive });
      bySet.set(r.policy_set_id, list);
    }
    return [...bySet].map(([policySetId, parameters]) => ({ policySetId, parameters }));
  }

  private valueOf(r: {
    id: string;
    policy_set_id: string;
    key: string;
    value: string | null;
    sealed_value: string | null;
  }): string {
    if (r.sealed_value === null) return r.value ?? '';
    const unreadable = (why: string) =>
      conflict(
        'POLICY_SETS_PARAMETER_UNREADABLE',
        `parameter ${r.key} (${r.id}) of policy set ${r.policy_set_id} cannot be decrypted: ${why}`,
      );
    if (!this.deps.parameterSealer) throw unreadable('POLICY_SET_PARAMETER_KEYS is not configured');
    try {
      return this.deps.parameterSealer.open(r.id, r.sealed_value);
    } catch (err) {
      // The sealer's messages name the key id, never a value.
      throw unreadable((err as Error).message);
    }
  }
}
