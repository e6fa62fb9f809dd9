import { enforcementLevel, type policysetsV1, policyKind } from '@policyhub/contracts';
import type { Handlers } from '@policyhub/grpc-runtime';
import { findApplicablePolicySets } from '../db/applicable-policy-sets-query.js';
import type { PolicySetsDeps } from '../deps.js';
import { optional } from './mappers.js';
import { kindOf } from './policy-set-input.js';

/**
 * Internal API for the runs service (no principal): the sets applying to a workspace with
 * their kind and current contents — individual policies with their code, or the current
 * version's archive key.
 */
export function applicablePolicySetHandlers({
  db,
}: PolicySetsDeps): Handlers<policysetsV1.ApplicablePolicySetsHandlers> {
  return {
    async GetApplicablePolicySets(req) {
      const { sets, policies } = await findApplicablePolicySets(db, {
        organization: { name: req.organization, id: req.organizationId ?? null },
        workspaceId: req.workspaceId,
        projectId: req.projectId ?? null,
        kind: kindOf(req.kind),
      });
      const bySet = new Map<string, policysetsV1.ApplicablePolicy[]>();
      for (const p of policies) {
        const list = bySet.get(p.policy_set_id) ?? [];
        list.push({
          id: p.id,
          name: p.name,
          enforcementLevel: enforcementLevel.fromKnownWord(p.enforcement_level),
          code: p.code?.toString('utf8'),
        });
        bySet.set(p.policy_set_id, list);
      }
      return {
        policySets: sets.map((s) => ({
          id: s.id,
          name: s.name,
          kind: policyKind.fromKnownWord(s.kind),
          overridable: s.overridable,
          agentEnabled: s.agent_enabled,
          policies: bySet.get(s.id) ?? [],
          currentVersionObjectKey: optional(s.current_version_object_key),
          currentVersionId: optional(s.current_version_id),
          policiesPath: optional(s.policies_path),
        })),
      };
    },
  };
}
