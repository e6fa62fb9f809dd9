import { describe, expect, it } from 'vitest';
import type { PolicySetSnapshot } from './evaluation.js';
import {
  type OutcomePolicy,
  countResults,
  decideEvaluation,
  partitionSets,
  stageStatusAfter,
} from './task-stages.js';

const set = (id: string, kind: string, extra: Partial<PolicySetSnapshot> = {}): PolicySetSnapshot => ({
  id,
  name: id,
  kind,
  policies: [{ id: `pol-${id}`, name: 'p', enforcementLevel: 'hard-mandatory', code: '' }],
  archiveObjectKey: '',
  versionId: '',
  ...extra,
});

const outcome = (
  status: OutcomePolicy['status'],
  level: OutcomePolicy['enforcement_level'],
): OutcomePolicy => ({
  policy_name: 'p',
  enforcement_level: level,
  query: null,
  status,
  description: null,
  output: [],
});

const setOutcome = (outcomes: OutcomePolicy[], overridable: boolean | null) => ({
  policySetId: 's',
  policySetName: 's',
  policySetDescription: null,
  overridable,
  error: null,
  outcomes,
  resultCount: countResults(outcomes),
});

describe('task stages', () => {
  it('keep kind_a sets outside agents for the check; one evaluation per other kind, levels advisory or mandatory', () => {
    const { checkSets, evaluationSets } = partitionSets([
      set('a', 'kind_a'),
      set('agent', 'kind_a', { agentEnabled: true }),
      set('b1', 'kind_b'),
      set('b2', 'kind_b'),
    ]);
    expect(checkSets.map((s) => s.id)).toEqual(['a']);
    expect([...evaluationSets.keys()]).toEqual(['kind_a', 'kind_b']);
    expect(evaluationSets.get('kind_b')!.map((s) => s.id)).toEqual(['b1', 'b2']);
    expect(evaluationSets.get('kind_b')![0]!.policies[0]!.enforcementLevel).toBe('mandatory');
    // Sentinel needs its own level; the outcome reports it as mandatory.
    expect(evaluationSets.get('kind_a')![0]!.policies[0]!.enforcementLevel).toBe('hard-mandatory');
  });

  it('decide an evaluation: errored beats failed, advisory failures only count, overrides need every set', () => {
    expect(
      decideEvaluation([setOutcome([outcome('failed', 'advisory'), outcome('passed', 'mandatory')], null)]),
    ).toEqual({ status: 'passed', overridable: false });
    expect(decideEvaluation([setOutcome([outcome('failed', 'mandatory')], true)])).toEqual({
      status: 'failed',
      overridable: true,
    });
    expect(
      decideEvaluation([
        setOutcome([outcome('failed', 'mandatory')], true),
        setOutcome([outcome('failed', 'mandatory')], false),
      ]),
    ).toEqual({ status: 'failed', overridable: false });
    expect(
      decideEvaluation([setOutcome([outcome('errored', 'advisory'), outcome('failed', 'mandatory')], true)]),
    ).toEqual({
      status: 'errored',
      overridable: false,
    });
  });

  it('settle the stage only once no evaluation is open', () => {
    expect(
      stageStatusAfter([
        { status: 'passed', overridable: false },
        { status: 'running', overridable: false },
      ]),
    ).toBe(undefined);
    expect(
      stageStatusAfter([
        { status: 'passed', overridable: false },
        { status: 'failed', overridable: true },
      ]),
    ).toBe('awaiting_override');
    expect(
      stageStatusAfter([
        { status: 'failed', overridable: true },
        { status: 'failed', overridable: false },
      ]),
    ).toBe('failed');
    expect(
      stageStatusAfter([
        { status: 'errored', overridable: false },
        { status: 'failed', overridable: true },
      ]),
    ).toBe('errored');
    expect(stageStatusAfter([{ status: 'passed', overridable: false }])).toBe('passed');
  });
});
