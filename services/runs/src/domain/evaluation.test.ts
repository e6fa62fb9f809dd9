import { describe, expect, it } from 'vitest';
import { type PolicySetSnapshot, resolveOutcomes } from './evaluation.js';

const listed: PolicySetSnapshot = {
  id: 'polset-1',
  name: 'guardrails',
  kind: 'kind_a',
  parameters: {},
  policies: [{ id: 'pol-1', name: 'no-s3', enforcementLevel: 'soft-mandatory', code: '' }],
  archiveObjectKey: '',
  versionId: '',
};
const versioned: PolicySetSnapshot = {
  ...listed,
  id: 'polset-2',
  policies: [],
  archiveObjectKey: 'acme/x.tar.gz',
  versionId: 'v',
};

describe('resolveOutcomes', () => {
  it('takes the level of listed policies from the snapshot, whatever the evaluator says', () => {
    const [o] = resolveOutcomes(
      [listed],
      [{ policySetId: 'polset-1', policyName: 'no-s3', passed: false, enforcementLevel: 'advisory' }],
    );
    expect(o).toMatchObject({ enforcementLevel: 'soft-mandatory', passed: false });
  });

  it('accepts archive policies with a valid level and rejects them without one', () => {
    const ok = resolveOutcomes(
      [versioned],
      [{ policySetId: 'polset-2', policyName: 'x', passed: true, enforcementLevel: 'hard-mandatory' }],
    );
    expect(ok).toEqual([
      { policySetId: 'polset-2', policyName: 'x', enforcementLevel: 'hard-mandatory', passed: true },
    ]);
    expect(() =>
      resolveOutcomes(
        [versioned],
        [{ policySetId: 'polset-2', policyName: 'x', passed: true, enforcementLevel: '' }],
      ),
    ).toThrow(/needs an enforcement level/);
  });

  it('rejects missing, duplicate and foreign outcomes all at once', () => {
    const reported = [
      { policySetId: 'polset-9', policyName: 'a', passed: true, enforcementLevel: '' },
      { policySetId: 'polset-2', policyName: 'b', passed: true, enforcementLevel: 'advisory' },
      { policySetId: 'polset-2', policyName: 'b', passed: true, enforcementLevel: 'advisory' },
    ];
    try {
      resolveOutcomes([listed, versioned], reported);
      expect.fail('expected an error');
    } catch (err) {
      expect((err as { items: Array<{ detail: string }> }).items.map((i) => i.detail)).toEqual([
        'outcome for unknown policy set polset-9',
        'more than one outcome for policy polset-2/b',
        'no outcome for policy polset-1/no-s3',
      ]);
    }
  });
});
