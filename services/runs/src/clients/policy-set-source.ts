import {
  contracts,
  declaredEnforcementLevel,
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
 * Applicable sets of every kind from policy-sets: kind_a sets outside agents become part of the
 * policy check, the others part of the run's task stage (domain/task-stages.ts decides).
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
        });
      } catch (err) {
        return dependencyFailure('policy-sets', err);
      }
      return res.policySets.map(toSnapshot);
    },
    async parameterValues(organization, policySetIds) {
      if (policySetIds.length === 0) return new Map();
      let res: policysetsV1.GetPolicySetParameterValuesResponse__Output;
      try {
        res = await client.GetPolicySetParameterValues({
          organization: organization.name,
          organizationId: organization.id ?? undefined,
          policySetIds: [...policySetIds],
        });
      } catch (err) {
        return dependencyFailure('policy-sets', err);
      }
      return new Map(
        res.policySets.map((s) => [
          s.policySetId,
          s.parameters.map((p) => ({ key: p.key, value: p.value, sensitive: p.sensitive })),
        ]),
      );
    },
    close: () => client.close(),
  };
}

function toSnapshot(s: policysetsV1.ApplicablePolicySet__Output): PolicySetSnapshot {
  return {
    id: s.id,
    name: s.name,
    kind: policyKind.toWord(s.kind),
    // `s.parameters` is left out: the snapshot is stored with the check, and the evaluator gets
    // the values (parameterValues) when it reads the input.
    policies: s.policies.map((p) => ({
      id: p.id,
      name: p.name,
      enforcementLevel: kindALevel(enforcementLevel.toWord(p.enforcementLevel)),
      // The snapshot's own convention (runs' domain): "" = no code, no archive.
      code: p.code ?? '',
      query: p.query ?? undefined,
      description: p.description ?? undefined,
    })),
    archiveObjectKey: s.currentVersionObjectKey ?? '',
    versionId: s.currentVersionId ?? '',
    policiesPath: s.policiesPath,
    agentEnabled: s.agentEnabled,
    overridable: s.overridable,
    description: s.description ?? undefined,
    toolVersion: s.policyToolVersion || undefined,
    declaration: s.currentVersionDeclaration
      ? {
          root: s.currentVersionDeclaration.root,
          configPath: s.currentVersionDeclaration.configPath,
          policies: s.currentVersionDeclaration.policies.map((p) => ({
            name: p.name,
            enforcementLevel: declaredEnforcementLevel.toWord(p.enforcementLevel),
            source: p.source ?? '',
            query: p.query ?? '',
            description: p.description ?? '',
          })),
          sentinelBlocksJson: s.currentVersionDeclaration.sentinelBlocksJson ?? '',
        }
      : undefined,
  };
}

/**
 * Checks hold kind_a sets, whose policies never carry kind_b's `mandatory` (policy-sets refuses
 * it for them); were one to, it still blocks the run.
 */
const kindALevel = (word: EnforcementLevelWord): PolicySnapshot['enforcementLevel'] =>
  word === 'mandatory' ? 'hard-mandatory' : word;
