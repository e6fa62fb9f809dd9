import { describe, expect, it } from 'vitest';
import { exitCodeOf, policyOutcomes, verdictOf } from './outcomes.mjs';

describe('reading a policy check', () => {
  it('finds each policy of the report, in upstream layout', () => {
    const report = [
      'kind_a Result: false',
      '',
      'This result means that one or more mandatory policies failed.',
      '',
      '2 policies evaluated.',
      '',
      '## Policy 1: prod/no-s3 (hard-mandatory)',
      '',
      'Result: true',
      '',
      'TRUE - no-s3 - fine',
      '',
      '## Policy 2: prod/no iam users (soft-mandatory)',
      '',
      'Result: false',
      '',
    ].join('\n');
    expect(policyOutcomes(report)).toEqual([
      { name: 'prod/no-s3', enforcementLevel: 'hard-mandatory', passed: true },
      { name: 'prod/no iam users', enforcementLevel: 'soft-mandatory', passed: false },
    ]);
    expect(policyOutcomes('')).toEqual([]);
  });

  it.each([
    ['planned', undefined, 'no-policies', 0],
    ['policy_checked', 'passed', 'passed', 0],
    ['policy_checked', 'overridden', 'overridden', 0],
    ['policy_override', 'soft_failed', 'soft-failed', 2],
    ['policy_soft_failed', 'soft_failed', 'soft-failed', 2],
    ['errored', 'hard_failed', 'hard-failed', 1],
    ['errored', 'errored', 'errored', 1],
    ['errored', undefined, 'errored', 1],
    ['canceled', 'canceled', 'canceled', 1],
  ])('run %s with check %s is %s (exit %d)', (run, check, verdict, code) => {
    expect(verdictOf(run, check)).toBe(verdict);
    expect(exitCodeOf(verdictOf(run, check))).toBe(code);
  });

  it.each([
    ['post_plan_completed', { status: 'passed', overridden: false }, 'passed', 0],
    ['post_plan_completed', { status: 'passed', overridden: true }, 'overridden', 0],
    ['post_plan_awaiting_decision', { status: 'awaiting_override', overridden: false }, 'soft-failed', 2],
    ['policy_soft_failed', { status: 'awaiting_override', overridden: false }, 'soft-failed', 2],
    ['errored', { status: 'failed', overridden: false }, 'hard-failed', 1],
    ['errored', { status: 'errored', overridden: false }, 'errored', 1],
  ])('run %s with task stage %o is %s (exit %d)', (run, stage, verdict, code) => {
    expect(verdictOf(run, undefined, stage)).toBe(verdict);
    expect(exitCodeOf(verdictOf(run, undefined, stage))).toBe(code);
  });
});
