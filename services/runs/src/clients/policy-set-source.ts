import {
  contracts,
  type EnforcementLevelWord,
  enforcementLevel,
  type policysetsV1,
  policyKind,
} from '@policyhub/contracts';
import { type ClientCredential, createClient } from '@policyhub/grpc-runtime';
import type { PolicySetSnapshot, PolicySnapshot } from '../domain/evaluation.js';
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
          organizationId: workspace.organizationId || undefined,
          workspaceId: workspace.id,
          projectId: workspace.projectId || undefined,
          kind: 'POLICY_KIND_A',
        });
      } catch (err) {
        return dependencyFailure('policy-sets', err);
      }
      return res.policySets.filter((s) => s.kind === 'POLICY_KIND_A' && !s.agentEnabled).map(toSnapshot);
    },
    close: () => client.close(),
  };
}

function toSnapshot(s: policysetsV1.ApplicablePolicySet__Output): PolicySetSnapshot {
  return {
    id: s.id,
    name: s.name,
    kind: policyKind.toWord(s.kind),
    // The contract has no set parameters yet; the evaluator protocol already carries them.
    parameters: {},
    policies: s.policies.map((p) => ({
      id: p.id,
      name: p.name,
      enforcementLevel: kindALevel(enforcementLevel.toWord(p.enforcementLevel)),
      // The snapshot's own convention (runs' domain): "" = no code, no archive.
      code: p.code ?? '',
    })),
    archiveObjectKey: s.currentVersionObjectKey ?? '',
    versionId: s.currentVersionId ?? '',
    policiesPath: s.policiesPath,
  };
}

/**
 * Checks hold kind_a sets, whose policies never carry kind_b's `mandatory` (policy-sets refuses
 * it for them); were one to, it still blocks the run.
 */
const kindALevel = (word: EnforcementLevelWord): PolicySnapshot['enforcementLevel'] =>
  word === 'mandatory' ? 'hard-mandatory' : word;
