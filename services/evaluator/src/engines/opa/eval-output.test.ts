import { describe, expect, it } from 'vitest';
import { judgeAnswer, readOpaAnswer } from './eval-output.js';

const value = (v: unknown) =>
  JSON.stringify({
    result: [{ expressions: [{ value: v, text: 'data.t.deny', location: { row: 1, col: 1 } }] }],
  });

describe('opa eval --format json', () => {
  it("judges a query's value: an empty array passes, messages fail, anything else is errored", () => {
    const judge = (output: string) => judgeAnswer('data.t.deny', readOpaAnswer(output, '/b'));
    expect(judge(value([]))).toEqual({ result: 'passed', lines: [] });
    expect(judge(value(['bucket logs is public', { resource: 'a' }]))).toEqual({
      result: 'failed',
      lines: ['bucket logs is public', '{"resource":"a"}'],
    });
    expect(judge('{}')).toEqual({
      result: 'errored',
      lines: [expect.stringMatching(/^data.t.deny is undefined: no rule of that package and name/)],
    });
    expect(judge(value(true))).toEqual({
      result: 'errored',
      lines: ['data.t.deny is a boolean (true), not an array of messages (empty when the policy passes)'],
    });
    expect(judge(value({ deny: [] })).lines[0]).toMatch(/is an object \(\{"deny":\[\]\}\), not an array/);
  });

  it('reads errors with their codes, files relative to the bundle', () => {
    const answer = readOpaAnswer(
      JSON.stringify({
        errors: [
          {
            code: 'rego_parse_error',
            message: '`if` keyword is required before rule body',
            location: { file: '/b/policies/deny.rego', row: 5, col: 1 },
          },
          {
            code: 'rego_type_error',
            message: 'undefined function http.send',
            location: { file: 'x.rego', row: 2 },
          },
        ],
      }),
      '/b',
    );
    expect(answer).toEqual({
      kind: 'errors',
      codes: ['rego_parse_error', 'rego_type_error'],
      lines: [
        'rego_parse_error: policies/deny.rego:5: `if` keyword is required before rule body',
        'rego_type_error: x.rego:2: undefined function http.send',
      ],
    });
    expect(judgeAnswer('data.t.deny', answer).result).toBe('errored');
  });

  it('treats output that is no OPA answer, and queries with several results, as errors', () => {
    expect(readOpaAnswer('panic: runtime error', '/b')).toMatchObject({
      kind: 'errors',
      lines: ['OPA printed: panic: runtime error'],
    });
    expect(readOpaAnswer(JSON.stringify({ result: [{}, {}] }), '/b')).toMatchObject({
      kind: 'errors',
      lines: ['the query has 2 results; it must name one rule (no variables)'],
    });
  });
});
