import type { policysetsV1 } from '@policyhub/contracts';
import type { Handlers } from '@policyhub/grpc-runtime';
import type {
  PolicySetRelationshipUseCases,
  RelationshipChange,
} from '../use-cases/policy-set-relationships.js';

const RELATIONSHIP_RPCS = {
  AddPolicies: { relationship: 'policies', op: 'add' },
  RemovePolicies: { relationship: 'policies', op: 'remove' },
  AttachProjects: { relationship: 'projects', op: 'add' },
  DetachProjects: { relationship: 'projects', op: 'remove' },
  AttachWorkspaces: { relationship: 'workspaces', op: 'add' },
  DetachWorkspaces: { relationship: 'workspaces', op: 'remove' },
  AddWorkspaceExclusions: { relationship: 'workspaceExclusions', op: 'add' },
  RemoveWorkspaceExclusions: { relationship: 'workspaceExclusions', op: 'remove' },
  AddProjectExclusions: { relationship: 'projectExclusions', op: 'add' },
  RemoveProjectExclusions: { relationship: 'projectExclusions', op: 'remove' },
} as const satisfies Record<string, RelationshipChange>;

export type RelationshipRpc = keyof typeof RELATIONSHIP_RPCS;

type RelationshipHandlers = Pick<Handlers<policysetsV1.PolicySetsHandlers>, RelationshipRpc>;

/** The ten relationship endpoints: each one change of one relationship (use-cases/policy-set-relationships.ts). */
export function policySetRelationshipHandlers(
  relationships: PolicySetRelationshipUseCases,
): RelationshipHandlers {
  const handlers = {} as RelationshipHandlers;
  for (const [rpc, change] of Object.entries(RELATIONSHIP_RPCS) as Array<
    [RelationshipRpc, RelationshipChange]
  >) {
    // The ten requests are distinct messages with the same fields.
    handlers[rpc] = async (req: policysetsV1.AddPoliciesRequest__Output, { principal }) => {
      await relationships.change(principal, req.policySetId, change, req.ids);
      return {};
    };
  }
  return handlers;
}
