import { enforcementLevel, type policysetsV1, policyKind } from '@policyhub/contracts';
import type { Handlers } from '@policyhub/grpc-runtime';
import type { ApplicablePolicySetUseCases } from '../use-cases/applicable-policy-sets.js';
import { declarationMessage } from './declarations.js';
import { optional } from './mappers.js';
import { kindOf } from './policy-set-input.js';

/** Internal API for the runs service (no principal): the sets applying to a workspace. */
export function applicablePolicySetHandlers(
  applicable: ApplicablePolicySetUseCases,
): Handlers<policysetsV1.ApplicablePolicySetsHandlers> {
  return {
    async GetApplicablePolicySets(req) {
      const sets = await applicable.find({
        organization: { name: req.organization, id: req.organizationId ?? null },
        workspaceId: req.workspaceId,
        projectId: req.projectId ?? null,
        kind: kindOf(req.kind),
      });
      return {
        policySets: sets.map((s) => ({
          id: s.id,
          name: s.name,
          kind: policyKind.fromKnownWord(s.kind),
          overridable: s.overridable,
          agentEnabled: s.agent_enabled,
          policies: s.policies.map((p) => ({
            id: p.id,
            name: p.name,
            enforcementLevel: enforcementLevel.fromKnownWord(p.enforcement_level),
            code: p.code?.toString('utf8'),
            query: optional(p.query),
            description: optional(p.description),
          })),
          currentVersionObjectKey: optional(s.current_version_object_key),
          currentVersionId: optional(s.current_version_id),
          currentVersionDeclaration: s.current_version_declaration
            ? declarationMessage(s.current_version_declaration)
            : null,
          policiesPath: optional(s.policies_path),
          description: optional(s.description),
          policyToolVersion: s.policy_tool_version ?? '',
          parameters: s.parameters,
        })),
      };
    },
    async GetPolicySetParameterValues(req) {
      const sets = await applicable.parameterValues(
        { name: req.organization, id: req.organizationId ?? null },
        req.policySetIds,
      );
      return { policySets: sets };
    },
  };
}
