import { describe, expect, it } from 'vitest';
import type { SetLayout } from './layout.js';
import { readApplyResult } from './results.js';

const layout: SetLayout = {
  setId: 'polset-1',
  setName: 'guardrails',
  dir: '/w',
  configFile: '/w/sentinel.hcl',
  policies: [
    {
      name: 'restrict-s3',
      enforcementLevel: 'hard-mandatory',
      source: './policies/restrict-s3.sentinel',
      file: 'restrict-s3.sentinel',
    },
    { name: 'tags', enforcementLevel: 'advisory', source: './tags.sentinel', file: 'tags.sentinel' },
  ],
};

/** The shape `sentinel apply -json` prints (policies with result, error and trace). */
const applied = (policies: unknown[]) =>
  JSON.stringify({ can_override: false, error: null, policies, result: false });

describe('sentinel apply -json results', () => {
  it('matches entries to configured policies by name or source and keeps the rule trace', () => {
    const outcomes = readApplyResult(
      applied([
        {
          allowed_failure: false,
          error: null,
          policy: 'policies/restrict-s3.sentinel',
          result: false,
          trace: {
            print: 'bucket logs is public\n',
            rules: {
              main: {
                ident: 'main',
                position: { filename: 'policies/restrict-s3.sentinel', line: 12, column: 1 },
                value: false,
              },
            },
          },
        },
        { policy: 'tags', result: true, trace: { rules: { main: { ident: 'main', value: true } } } },
      ]),
      layout,
    );
    expect(outcomes).toEqual([
      {
        policyName: 'restrict-s3',
        result: 'failed',
        enforcementLevel: 'hard-mandatory',
        heading: 'restrict-s3.sentinel',
        lines: ['bucket logs is public', 'FALSE - restrict-s3.sentinel:12:1 - Rule "main"'],
      },
      {
        policyName: 'tags',
        result: 'passed',
        enforcementLevel: 'advisory',
        heading: 'tags.sentinel',
        lines: ['TRUE - Rule "main"'],
      },
    ]);
  });

  it('a runtime error errors the policy; an unknown entry keeps its name for runs to refuse', () => {
    const outcomes = readApplyResult(
      applied([
        { policy: 'tags', result: true, error: { message: 'import "x" not found' } },
        { policy: 'extra.sentinel', result: true },
      ]),
      layout,
    );
    expect(outcomes.map((o) => [o.policyName, o.result, o.enforcementLevel])).toEqual([
      ['tags', 'errored', 'advisory'],
      ['extra.sentinel', 'passed', undefined],
    ]);
    expect(outcomes[0]!.lines[0]).toBe('ERROR - import "x" not found');
  });

  it('refuses output that is no apply result', () => {
    expect(() => readApplyResult('Pass - x.sentinel', layout)).toThrow(/not JSON/);
    expect(() => readApplyResult('{"error":{"message":"bad config"}}', layout)).toThrow(
      /no policy results: bad config/,
    );
  });
});
