import { describe, expect, it } from 'vitest';
import { aggregateOutcomes, type PolicyOutcome } from './aggregation.js';

const outcome = (
  level: PolicyOutcome['enforcementLevel'],
  passed: boolean,
  name = `${level}-${passed}`,
): PolicyOutcome => ({
  policySetId: 'polset-1',
  policyName: name,
  enforcementLevel: level,
  passed,
});

describe('aggregateOutcomes', () => {
  it('passes when nothing mandatory failed, counting advisory failures', () => {
    const { status, result } = aggregateOutcomes(
      [outcome('advisory', false), outcome('hard-mandatory', true)],
      7.6,
      undefined,
    );
    expect(status).toBe('passed');
    expect(result).toMatchObject({
      result: true,
      passed: 1,
      totalFailed: 1,
      advisoryFailed: 1,
      hardFailed: 0,
      durationMs: 8,
    });
  });

  it('soft-fails on a soft-mandatory failure and hard-fails as soon as a hard-mandatory one fails', () => {
    expect(aggregateOutcomes([outcome('soft-mandatory', false)], 0, undefined).status).toBe('soft_failed');
    const both = aggregateOutcomes(
      [outcome('soft-mandatory', false), outcome('hard-mandatory', false)],
      0,
      undefined,
    );
    expect(both.status).toBe('hard_failed');
    expect(both.result).toMatchObject({ result: false, totalFailed: 2, hardFailed: 1, softFailed: 1 });
  });

  it('keeps the engine details, or summarises the outcomes so the hash is never empty', () => {
    expect(aggregateOutcomes([], 0, { trace: [1] }).result.engineDetails).toEqual({ trace: [1] });
    const summary = aggregateOutcomes([outcome('advisory', true, 'p')], 0, {}).result.engineDetails;
    expect(summary).toEqual({
      policies: [{ 'policy-set-id': 'polset-1', policy: 'p', 'enforcement-level': 'advisory', result: true }],
    });
  });
});
