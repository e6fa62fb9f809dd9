import {
  type ApplicablePolicyRow,
  type ApplicableQuery,
  type ApplicableSetRow,
  findApplicablePolicySets,
} from '../db/applicable-policy-sets-query.js';
import type { Deps } from '../deps.js';

/** A parameter as the engine gets it: sensitive values opened. */
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
      parameters: s.parameters.map((r) => ({ key: r.key, value: this.valueOf(r), sensitive: r.sensitive })),
    }));
  }

  /** A sensitive value is opened here, for the engine only; a value that cannot be opened fails the call (never evaluated without it). */
  private valueOf(r: { id: string; value: string | null; sealed_value: string | null }): string {
    if (r.sealed_value === null) return r.value ?? '';
    if (!this.deps.parameterSealer) {
      throw new Error(`parameter ${r.id} is sensitive and POLICY_SET_PARAMETER_KEYS is not configured`);
    }
    return this.deps.parameterSealer.open(r.id, r.sealed_value);
  }
}
