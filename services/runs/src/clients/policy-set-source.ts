import { contracts, type policysetsV1 } from '@policyhub/contracts';
import { type ClientCredential, createClient } from '@policyhub/grpc-runtime';
import type { PolicySetSnapshot } from '../domain/evaluation.js';
import { isEnforcementLevel } from '../domain/policy-check-status.js';
import type { PolicySetSource, WorkspaceInfo } from '../domain/ports.js';
import { dependencyFailure } from './dependency-errors.js';

/**
 * Applicable sets from policy-sets. Only kind_a sets that do not run in an agent become part of a
 * policy check (agent-enabled sets are evaluated as "policy evaluations" upstream, not here).
 */
export function grpcPolicySetSource(
  address: string,
  credential: ClientCredential,
): PolicySetSource & { close(): void } {
  const client = createClient(contracts().policyhub.policysets.v1.ApplicablePolicySets, address, credential);
  return {
    async applicableSets(workspace: WorkspaceInfo): Promise<PolicySetSnapshot[]> {
      let res: policysetsV1.GetApplicablePolicySetsResponse__Output;
      try {
        res = await client.GetApplicablePolicySets({
          organization: workspace.organization,
          organizationId: workspace.organizationId,
          workspaceId: workspace.id,
          projectId: workspace.projectId,
          kind: 'kind_a',
        });
      } catch (err) {
        return dependencyFailure('policy-sets', err);
      }
      return res.policySets.filter((s) => s.kind === 'kind_a' && !s.agentEnabled).map(toSnapshot);
    },
    close: () => client.close(),
  };
}

function toSnapshot(s: policysetsV1.ApplicablePolicySet__Output): PolicySetSnapshot {
  return {
    id: s.id,
    name: s.name,
    kind: s.kind,
    // The contract has no set parameters yet; the evaluator protocol already carries them.
    parameters: {},
    policies: s.policies.map((p) => ({
      id: p.id,
      name: p.name,
      // policy-sets validates levels; an empty one means the upstream default, advisory.
      enforcementLevel: isEnforcementLevel(p.enforcementLevel) ? p.enforcementLevel : 'advisory',
      code: p.code,
    })),
    archiveObjectKey: s.currentVersionObjectKey,
    versionId: s.currentVersionId,
    policiesPath: s.policiesPath,
  };
}
