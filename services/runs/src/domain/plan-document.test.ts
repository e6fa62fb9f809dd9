import { describe, expect, it } from 'vitest';
import { PlanDocumentValidator, summarizeParsedPlan } from './plan-document.js';

/** Feeds `text` in chunks of `size` bytes (splitting anywhere, also inside characters). */
function validate(text: string, size = 7) {
  const bytes = Buffer.from(text);
  const v = new PlanDocumentValidator();
  for (let i = 0; i < bytes.length; i += size) v.write(bytes.subarray(i, i + size));
  return v.end();
}

const problem = (text: string) => {
  try {
    validate(text);
  } catch (err) {
    const e = err as { code: string; items: Array<{ field: string; detail: string }> };
    return { code: e.code, pointer: e.items[0]!.field, detail: e.items[0]!.detail };
  }
  throw new Error('expected a problem');
};

const change = (actions: unknown, extra: Record<string, unknown> = {}) => ({
  address: 'aws_instance.web',
  type: 'aws_instance',
  name: 'web',
  change: { actions, before: null, after: { tags: { 'ünï/cödé': '💩' } } },
  ...extra,
});

describe('plan document validation while streaming', () => {
  it('accepts a plan document in any chunking and counts its changes as upstream does', () => {
    const plan = JSON.stringify({
      format_version: '1.2',
      terraform_version: '1.9.0',
      planned_values: { root_module: { resources: [{ address: 'x', values: { a: [1, 2, { b: null }] } }] } },
      resource_changes: [
        change(['create']),
        change(['update']),
        change(['delete', 'create']),
        change(['delete']),
        change(['no-op'], { change: { actions: ['no-op'], importing: { id: 'i-1' } } }),
        change(['read']),
      ],
      output_changes: {},
    });
    const expected = {
      resourceAdditions: 2,
      resourceChanges: 1,
      resourceDestructions: 2,
      resourceImports: 1,
      hasChanges: true,
    };
    for (const size of [1, 3, 7, 64, 100_000]) expect(validate(plan, size)).toEqual(expected);
    expect(summarizeParsedPlan(JSON.parse(plan))).toEqual(expected);
  });

  it('a plan without resource changes has no changes', () => {
    expect(validate('{"format_version":"1.2","resource_changes":[]}')).toMatchObject({ hasChanges: false });
  });

  it.each([
    ['', '/', 'the plan is empty'],
    ['[]', '/', 'must be a JSON object'],
    ['"plan"', '/', 'must be a JSON object'],
    ['{"resource_changes":[]}', '/format_version', 'format_version is required'],
    ['{"format_version":1.2,"resource_changes":[]}', '/format_version', 'format_version must be a string'],
    ['{"format_version":"1.2"}', '/resource_changes', 'resource_changes is required'],
    [
      '{"format_version":"1.2","resource_changes":{}}',
      '/resource_changes',
      'resource_changes must be an array',
    ],
    ['{"format_version":"1.2","resource_changes":[1]}', '/resource_changes/0', 'must be an object'],
    [
      '{"format_version":"1.2","resource_changes":[{"address":"a","type":"t","change":{"actions":[]}},{"address":7}]}',
      '/resource_changes/1/address',
      'address must be a string',
    ],
    [
      '{"format_version":"1.2","resource_changes":[{"address":"a","change":{"actions":[]}}]}',
      '/resource_changes/0/type',
      'type is required',
    ],
    [
      '{"format_version":"1.2","resource_changes":[{"address":"a","type":"t","change":[]}]}',
      '/resource_changes/0/change',
      'change must be an object',
    ],
    [
      '{"format_version":"1.2","resource_changes":[{"address":"a","type":"t","change":{"actions":"create"}}]}',
      '/resource_changes/0/change/actions',
      'must be an array of strings',
    ],
    [
      '{"format_version":"1.2","resource_changes":[{"address":"a","type":"t","change":{"actions":["create",3]}}]}',
      '/resource_changes/0/change/actions/1',
      'must hold strings',
    ],
    [
      '{"format_version":"1.2","resource_changes":[{"address":"a","type":"t","change":{}}]}',
      '/resource_changes/0/change/actions',
      'change.actions is required',
    ],
    ['{"format_version":"1.2","resource_changes":[', '/resource_changes/0', 'ends in the middle'],
    ['{"format_version":"1.2",,}', '/', 'expected a property name'],
    ['{"format_version":"1.2","resource_changes":[]} {}', '/', 'after the end of the document'],
    ['\u0007\u0000garbage', '/', 'not valid JSON'],
  ])('%j is refused at %s', (text, pointer, detail) => {
    const p = problem(text);
    expect(p.code).toBe('RUNS_INVALID_PLAN_DOCUMENT');
    expect(p.pointer).toBe(pointer);
    expect(p.detail).toContain(detail);
  });

  it('escapes JSON pointer characters of keys', () => {
    expect(
      problem(
        '{"format_version":"1","resource_changes":[{"address":"a","type":"t","change":{"actions":[{}]}}]}',
      ).pointer,
    ).toBe('/resource_changes/0/change/actions/0');
  });

  it('copes with deep nesting outside the checked fields (no recursion)', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(
      validate(`{"format_version":"1","prior_state":${deep},"resource_changes":[]}`, 4096),
    ).toMatchObject({
      hasChanges: false,
    });
  });
});
