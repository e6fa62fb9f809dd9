import {
  type ApplicablePolicyRow,
  type ApplicableQuery,
  type ApplicableSetRow,
  findApplicablePolicySets,
} from '../db/applicable-policy-sets-query.js';
import type { Deps } from '../deps.js';

/** An applicable set with its individual policies (none for a versioned set). */
export type ApplicablePolicySetRow = ApplicableSetRow & { policies: ApplicablePolicyRow[] };

/**
 * For the runs service (an internal call, no principal): the sets applying to a workspace with
 * their current contents, individual policies with their code or the current version's archive.
 */
export class ApplicablePolicySetUseCases {
  constructor(private readonly deps: Pick<Deps, 'db'>) {}

  async find(query: ApplicableQuery): Promise<ApplicablePolicySetRow[]> {
    const { sets, policies } = await findApplicablePolicySets(this.deps.db, query);
    const bySet = new Map<string, ApplicablePolicyRow[]>();
    for (const p of policies) {
      const list = bySet.get(p.policy_set_id) ?? [];
      list.push(p);
      bySet.set(p.policy_set_id, list);
    }
    return sets.map((s) => ({ ...s, policies: bySet.get(s.id) ?? [] }));
  }
}
