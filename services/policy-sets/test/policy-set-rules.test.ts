import { AppError } from '@policyhub/errors';
import { describe, expect, it } from 'vitest';
import {
  type PolicySetFields,
  type PolicySetInput,
  type RelationshipFacts,
  resolveNewPolicySet,
  resolvePolicySetUpdate,
} from '../src/domain/policy-set-rules.js';

const NONE = { policyCount: 0 };
const VCS = {
  identifier: 'acme/p',
  branch: null,
  oauthTokenId: 'ot-1',
  githubAppInstallationId: null,
  ingressSubmodules: false,
};

/** The pointers of the 422 `fn` throws (none when it succeeds). */
function pointersOf(fn: () => unknown): string[] {
  try {
    fn();
    return [];
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    expect(err.kind).toBe('invalid');
    return err.items.map((i) => i.field!);
  }
}

describe('resolveNewPolicySet', () => {
  it('fills in the spec defaults', () => {
    expect(resolveNewPolicySet({ name: 'guard' }, NONE)).toEqual({
      name: 'guard',
      description: null,
      global: false,
      kind: 'kind_a',
      overridable: false,
      agentEnabled: false,
      policyToolVersion: 'latest',
      policiesPath: null,
      vcsRepo: null,
    });
  });

  it.each([
    [{ name: 'bad name' }, NONE, 'name'],
    [{ name: '' }, NONE, 'name'],
    [{ name: 'x'.repeat(129) }, NONE, 'name'],
    [{ name: 'g', overridable: true }, NONE, 'overridable'],
    [{ name: 'g', kind: 'kind_b', agentEnabled: true }, NONE, 'agent_enabled'],
    [{ name: 'g', policyToolVersion: '0.1.0' }, NONE, 'policy_tool_version'],
    [{ name: 'g', vcsRepo: { ...VCS, identifier: 'nope' } }, NONE, 'vcs_repo.identifier'],
    [
      { name: 'g', vcsRepo: { ...VCS, githubAppInstallationId: 'gh' } },
      NONE,
      'vcs_repo.github_app_installation_id',
    ],
    [{ name: 'g', vcsRepo: { ...VCS, oauthTokenId: null } }, NONE, 'vcs_repo.oauth_token_id'],
    [{ name: 'g', vcsRepo: VCS }, { policyCount: 1 }, 'vcs_repo'],
    [{ name: 'g', policiesPath: 'x' }, NONE, 'policies_path'],
    [{ name: 'g', global: true }, { policyCount: 0, workspaces: ['ws-1'] }, 'workspaces'],
    [{ name: 'g', global: true }, { policyCount: 0, projects: ['prj-1'] }, 'projects'],
  ] as Array<[PolicySetInput, RelationshipFacts, string]>)(
    'rejects %j (%j) at one pointer',
    (input, facts, pointer) => {
      expect(pointersOf(() => resolveNewPolicySet(input, facts))).toEqual([pointer]);
    },
  );

  it('accepts the allowed combinations', () => {
    for (const input of <PolicySetInput[]>[
      { name: 'a', agentEnabled: true, overridable: true, policyToolVersion: '0.30.0' },
      { name: 'b', kind: 'kind_b', overridable: true, policyToolVersion: 'v1' },
      { name: 'c', vcsRepo: VCS, policiesPath: 'sets/prod' },
      { name: 'd', vcsRepo: { ...VCS, identifier: 'org/project/_git/repo' } },
      { name: 'e', global: true },
    ]) {
      expect(
        pointersOf(() => resolveNewPolicySet(input, { policyCount: 0, workspaces: [] })),
        input.name,
      ).toEqual([]);
    }
  });
});

describe('resolvePolicySetUpdate', () => {
  const agentSet: PolicySetFields = {
    ...resolveNewPolicySet({ name: 'agent' }, NONE),
    agentEnabled: true,
    overridable: true,
    policyToolVersion: '0.30.0',
  };

  it('keeps omitted attributes', () => {
    expect(resolvePolicySetUpdate(agentSet, {}, NONE)).toEqual(agentSet);
    expect(resolvePolicySetUpdate(agentSet, { description: 'x' }, NONE)).toEqual({
      ...agentSet,
      description: 'x',
    });
  });

  it('resets overridable and the tool version when the agent is turned off', () => {
    expect(resolvePolicySetUpdate(agentSet, { agentEnabled: false }, NONE)).toMatchObject({
      agentEnabled: false,
      overridable: false,
      policyToolVersion: 'latest',
    });
    expect(
      pointersOf(() => resolvePolicySetUpdate(agentSet, { agentEnabled: false, overridable: true }, NONE)),
    ).toEqual(['overridable']);
  });

  it('drops policies-path with the repository', () => {
    const vcsSet = resolveNewPolicySet({ name: 'v', vcsRepo: VCS, policiesPath: 'p' }, NONE);
    expect(resolvePolicySetUpdate(vcsSet, { vcsRepo: null }, NONE)).toMatchObject({
      vcsRepo: null,
      policiesPath: null,
    });
  });

  it('refuses a kind change and checks the resulting state', () => {
    expect(pointersOf(() => resolvePolicySetUpdate(agentSet, { kind: 'kind_b' }, NONE))).toEqual(['kind']);
    expect(pointersOf(() => resolvePolicySetUpdate(agentSet, { kind: 'kind_a' }, NONE))).toEqual([]);
    const plain = resolveNewPolicySet({ name: 'p' }, NONE);
    expect(pointersOf(() => resolvePolicySetUpdate(plain, { vcsRepo: VCS }, { policyCount: 2 }))).toEqual([
      'vcs_repo',
    ]);
  });
});
