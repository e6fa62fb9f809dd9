import { describe, expect, it } from 'vitest';
import {
  declaredPolicies,
  type PolicySetSnapshot,
  resolveOutcomes,
  UNDECLARED_VERSION,
} from './evaluation.js';

const listed: PolicySetSnapshot = {
  id: 'polset-1',
  name: 'guardrails',
  kind: 'kind_a',
  policies: [{ id: 'pol-1', name: 'no-s3', enforcementLevel: 'soft-mandatory', code: '' }],
  archiveObjectKey: '',
  versionId: '',
};
const versioned: PolicySetSnapshot = {
  ...listed,
  id: 'polset-2',
  name: 'archived',
  policies: [],
  archiveObjectKey: 'acme/x.tar.gz',
  versionId: 'v',
};
const declared = new Map([['polset-2', [{ name: 'x', enforcementLevel: 'hard-mandatory' as const }]]]);
const outcome = (policySetId: string, policyName: string, passed = true, enforcementLevel = '') => ({
  policySetId,
  policyName,
  passed,
  enforcementLevel,
});

describe('resolveOutcomes: no verdict without evaluation', () => {
  it('takes the level of listed policies from the snapshot, whatever the evaluator says', () => {
    const { outcomes } = resolveOutcomes([listed], new Map(), [
      outcome('polset-1', 'no-s3', false, 'advisory'),
    ]);
    expect(outcomes).toEqual([
      { policySetId: 'polset-1', policyName: 'no-s3', enforcementLevel: 'soft-mandatory', passed: false },
    ]);
  });

  it('takes archive policies and their levels from the archive configuration', () => {
    const { outcomes, problems } = resolveOutcomes([versioned], declared, [
      outcome('polset-2', 'x', true, 'advisory'),
    ]);
    expect(problems).toEqual([]);
    expect(outcomes).toEqual([
      { policySetId: 'polset-2', policyName: 'x', enforcementLevel: 'hard-mandatory', passed: true },
    ]);
  });

  it('names missing, repeated and invented policies all at once', () => {
    const { problems } = resolveOutcomes([listed, versioned], declared, [
      outcome('polset-9', 'a'),
      outcome('polset-2', 'b'),
      outcome('polset-2', 'x'),
      outcome('polset-2', 'x'),
    ]);
    expect(problems).toEqual([
      'no outcome for guardrails/no-s3',
      'more than one outcome for archived/x',
      'outcome for policies that are not part of the check: polset-9/a, archived/b',
    ]);
  });

  it('an archive set without outcomes never passes, nor a check with nothing to evaluate', () => {
    expect(resolveOutcomes([versioned], declared, []).problems).toEqual(['no outcome for archived/x']);
    expect(resolveOutcomes([versioned], new Map([['polset-2', []]]), []).problems).toEqual([
      'the applicable policy sets (archived) hold no policy to evaluate',
    ]);
    expect(
      resolveOutcomes([versioned], new Map([['polset-2', 'its archive has no sentinel.hcl']]), []).problems,
    ).toEqual(['policy set archived: its archive has no sentinel.hcl']);
  });

  it('keys by null-prototype-safe names', () => {
    const proto = {
      ...listed,
      policies: [{ id: 'p', name: '__proto__', enforcementLevel: 'advisory' as const, code: '' }],
    };
    expect(resolveOutcomes([proto], new Map(), [outcome('polset-1', '__proto__')]).problems).toEqual([]);
    expect(resolveOutcomes([proto], new Map(), [outcome('polset-1', 'constructor')]).problems).toContain(
      'outcome for policies that are not part of the check: guardrails/constructor',
    );
  });
});

describe('declaredPolicies: what versioned sets declare, as recorded at upload', () => {
  const policy = (name: string, enforcementLevel: string) => ({
    name,
    enforcementLevel,
    source: '',
    query: `data.${name}.deny`,
    description: '',
  });
  const withDeclaration = (kind: string, policies: ReturnType<typeof policy>[]): PolicySetSnapshot => ({
    ...versioned,
    kind,
    declaration: { root: '', configPath: 'sentinel.hcl', policies, sentinelBlocksJson: '{}' },
  });

  it('takes names, levels and queries from the declaration; listed sets have none', () => {
    const declared = declaredPolicies([
      listed,
      withDeclaration('kind_a', [policy('a', 'soft-mandatory'), policy('b', 'advisory')]),
    ]);
    expect([...declared.keys()]).toEqual(['polset-2']);
    expect(declared.get('polset-2')).toEqual([
      { name: 'a', enforcementLevel: 'soft-mandatory', query: 'data.a.deny', description: undefined },
      { name: 'b', enforcementLevel: 'advisory', query: 'data.b.deny', description: undefined },
    ]);
  });

  it('a version without a declaration, or with a level its kind lacks, is a problem, not a pass', () => {
    expect(declaredPolicies([versioned]).get('polset-2')).toBe(UNDECLARED_VERSION);
    expect(declaredPolicies([withDeclaration('kind_a', [policy('a', 'mandatory')])]).get('polset-2')).toBe(
      'its archive declares policy a with enforcement level "mandatory"',
    );
    expect(declaredPolicies([withDeclaration('kind_b', [policy('a', 'mandatory')])]).get('polset-2')).toEqual(
      [expect.objectContaining({ name: 'a', enforcementLevel: 'mandatory' })],
    );
  });
});
