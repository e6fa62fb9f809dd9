import { ValidationErrors } from '@policyhub/errors';
import { checkName } from './names.js';
import { checkVcsRepo, type VcsRepo } from './vcs-repo.js';
import { DEFAULT_KIND, DEFAULT_POLICY_TOOL_VERSION, type Kind } from './vocabulary.js';

/** A policy set's own fields, as stored; null = not set. */
export interface PolicySetFields {
  name: string;
  description: string | null;
  global: boolean;
  kind: Kind;
  overridable: boolean;
  agentEnabled: boolean;
  policyToolVersion: string;
  policiesPath: string | null;
  vcsRepo: VcsRepo | null;
}

/** Attributes a client sent; undefined = not given, null = clear. */
export interface PolicySetInput {
  name?: string | undefined;
  description?: string | null | undefined;
  global?: boolean | undefined;
  kind?: Kind | undefined;
  overridable?: boolean | undefined;
  agentEnabled?: boolean | undefined;
  policyToolVersion?: string | undefined;
  policiesPath?: string | null | undefined;
  /** null = remove the repository. */
  vcsRepo?: VcsRepo | null | undefined;
}

/** Relationship lists a client sent (undefined = not given) and the resulting number of policies. */
export interface RelationshipFacts {
  policyCount: number;
  workspaces?: readonly string[] | undefined;
  projects?: readonly string[] | undefined;
}

const TOOL_VERSION_MAX = 64;
const PATH_MAX = 1024;

/** A new set from the create body: the spec's defaults, then every rule. */
export function resolveNewPolicySet(input: PolicySetInput, facts: RelationshipFacts): PolicySetFields {
  const errors = new ValidationErrors();
  checkName(errors, 'POLICY_SETS_INVALID_NAME', input.name ?? '');
  const fields: PolicySetFields = {
    name: input.name ?? '',
    description: input.description ?? null,
    global: input.global ?? false,
    kind: input.kind ?? DEFAULT_KIND,
    overridable: input.overridable ?? false,
    agentEnabled: input.agentEnabled ?? false,
    policyToolVersion: input.policyToolVersion ?? DEFAULT_POLICY_TOOL_VERSION,
    policiesPath: input.policiesPath ?? null,
    vcsRepo: input.vcsRepo ?? null,
  };
  checkPolicySet(errors, fields, facts);
  errors.throwIfAny();
  return fields;
}

/**
 * Applies an update: absent attributes keep their values, then the create rules apply to the
 * result. Turning the agent off on a kind_a set resets `overridable` and `policy-tool-version`
 * to their defaults unless the body sets them; removing the repository drops `policies-path`.
 */
export function resolvePolicySetUpdate(
  current: PolicySetFields,
  input: PolicySetInput,
  facts: RelationshipFacts,
): PolicySetFields {
  const errors = new ValidationErrors();
  if (input.name !== undefined) checkName(errors, 'POLICY_SETS_INVALID_NAME', input.name);
  if (input.kind !== undefined && input.kind !== current.kind) {
    errors.add('POLICY_SETS_KIND_IMMUTABLE', 'kind', 'Kind cannot be changed after creation');
  }
  const agentEnabled = input.agentEnabled ?? current.agentEnabled;
  const agentTurnedOff = current.kind === 'kind_a' && current.agentEnabled && !agentEnabled;
  const vcsRepo = input.vcsRepo === undefined ? current.vcsRepo : input.vcsRepo;
  const fields: PolicySetFields = {
    name: input.name ?? current.name,
    description: input.description !== undefined ? input.description : current.description,
    global: input.global ?? current.global,
    kind: current.kind,
    agentEnabled,
    overridable: input.overridable ?? (agentTurnedOff ? false : current.overridable),
    policyToolVersion:
      input.policyToolVersion ?? (agentTurnedOff ? DEFAULT_POLICY_TOOL_VERSION : current.policyToolVersion),
    policiesPath:
      input.policiesPath !== undefined ? input.policiesPath : vcsRepo === null ? null : current.policiesPath,
    vcsRepo,
  };
  checkPolicySet(errors, fields, facts);
  errors.throwIfAny();
  return fields;
}

/** The spec's rules on a (resulting) set, each reported at the attribute it concerns. */
function checkPolicySet(errors: ValidationErrors, s: PolicySetFields, facts: RelationshipFacts): void {
  if (s.kind === 'kind_b' && s.agentEnabled) {
    errors.add(
      'POLICY_SETS_AGENT_REQUIRES_KIND_A',
      'agent_enabled',
      'Agent-enabled is only valid for kind_a sets',
    );
  }
  if (s.kind === 'kind_a' && !s.agentEnabled && s.overridable) {
    errors.add(
      'POLICY_SETS_OVERRIDABLE_REQUIRES_AGENT',
      'overridable',
      'Overridable is only valid for kind_a sets with agent-enabled',
    );
  }
  if (s.policyToolVersion.length > TOOL_VERSION_MAX) {
    errors.add(
      'POLICY_SETS_INVALID_TOOL_VERSION',
      'policy_tool_version',
      `Policy tool version is too long (maximum is ${TOOL_VERSION_MAX} characters)`,
    );
  } else if (s.kind === 'kind_a' && !s.agentEnabled && s.policyToolVersion !== DEFAULT_POLICY_TOOL_VERSION) {
    errors.add(
      'POLICY_SETS_TOOL_VERSION_REQUIRES_AGENT',
      'policy_tool_version',
      'Policy tool version can only be set on kind_a sets with agent-enabled',
    );
  }
  if (s.vcsRepo) {
    checkVcsRepo(errors, s.vcsRepo);
    if (facts.policyCount > 0) {
      errors.add(
        'POLICY_SETS_VCS_REPO_WITH_POLICIES',
        'vcs_repo',
        'A set with a VCS repository cannot have individual policies',
      );
    }
  }
  if (s.policiesPath !== null && !s.vcsRepo) {
    errors.add(
      'POLICY_SETS_POLICIES_PATH_REQUIRES_VCS_REPO',
      'policies_path',
      'Policies path is only valid with a VCS repository',
    );
  } else if (s.policiesPath !== null && s.policiesPath.length > PATH_MAX) {
    errors.add('POLICY_SETS_INVALID_POLICIES_PATH', 'policies_path', 'Policies path is too long');
  }
  if (s.global) {
    for (const [key, ids] of [
      ['workspaces', facts.workspaces],
      ['projects', facts.projects],
    ] as const) {
      if (ids && ids.length > 0) {
        errors.add(
          'POLICY_SETS_GLOBAL_SET_ATTACHMENTS',
          key,
          `A global set applies to every workspace; ${key} can only be given when global is false`,
        );
      }
    }
  }
}
