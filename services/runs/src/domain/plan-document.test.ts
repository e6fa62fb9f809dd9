import { describe, expect, it } from 'vitest';
import { PLAN_LIMITS, PlanDocumentValidator, summarizeParsedPlan } from './plan-document.js';

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
    ['\u0007\u0000garbage', '/', 'the plan is not JSON: send the output of `terraform show -json'],
    ['PK\u0003\u0004\u0014\u0000binary', '/', 'not the plan file itself'],
    ['{"format_version":"1.2",\u0001}', '/', 'not valid JSON: unexpected U+0001 at byte 24'],
    ['{"format_version":"1.2","resource_changes":[tru]}', '/resource_changes/0', 'unexpected "]" at byte'],
  ])('%j is refused at %s', (text, pointer, detail) => {
    const p = problem(text);
    expect(p.code).toBe('RUNS_INVALID_PLAN_DOCUMENT');
    expect(p.pointer).toBe(pointer);
    expect(p.detail).toContain(detail);
  });

  it('names invalid UTF-8 as such', () => {
    const v = new PlanDocumentValidator();
    v.write(Buffer.from('{"format_version":"'));
    expect(() => {
      v.write(Buffer.from([0xc3, 0x28]));
      v.write(Buffer.from('"}'));
      v.end();
    }).toThrow(
      expect.objectContaining({
        items: [expect.objectContaining({ detail: 'the plan is not valid UTF-8 text' })],
      }),
    );
  });

  it('escapes JSON pointer characters of keys', () => {
    expect(
      problem(
        '{"format_version":"1","resource_changes":[{"address":"a","type":"t","change":{"actions":[{}]}}]}',
      ).pointer,
    ).toBe('/resource_changes/0/change/actions/0');
  });

  it('accepts nesting up to the depth limit anywhere in the document', () => {
    const arrays = PLAN_LIMITS.depth - 1; // the root object is the first level
    const deep = `${'['.repeat(arrays)}${']'.repeat(arrays)}`;
    expect(
      validate(`{"format_version":"1","prior_state":${deep},"resource_changes":[]}`, 4096),
    ).toMatchObject({
      hasChanges: false,
    });
  });

  it('refuses one level more, naming the limit and the place, and refuses every later write', () => {
    const v = new PlanDocumentValidator();
    const opening = Buffer.from(`{"format_version":"1","prior_state":${'['.repeat(PLAN_LIMITS.depth)}`);
    const err = (() => {
      try {
        v.write(opening);
      } catch (e) {
        return e as { code: string; items: Array<{ field: string; detail: string }> };
      }
      throw new Error('expected a refusal');
    })();
    expect(err.code).toBe('RUNS_INVALID_PLAN_DOCUMENT');
    expect(err.items[0]!.detail).toContain(`more than ${PLAN_LIMITS.depth} levels deep`);
    expect(err.items[0]!.field).toBe(`/prior_state${'/0'.repeat(PLAN_LIMITS.depth - 1)}`);
    // A sender that goes on sending gets the same answer, and nothing more is read.
    expect(() => v.write(Buffer.alloc(1024 * 1024, '['))).toThrow(err as unknown as Error);
    expect(() => v.end()).toThrow(err as unknown as Error);
  });

  it('refuses a string or a number longer than the limit while it is still arriving', () => {
    for (const [opening, filler, what] of [
      ['{"format_version":"', 'a', 'a string'],
      ['{"format_version":"1","x":1', '7', 'a number'],
      ['{"', 'k', 'a property name'],
    ] as const) {
      const v = new PlanDocumentValidator();
      v.write(Buffer.from(opening));
      const chunk = Buffer.alloc(1024 * 1024, filler);
      let sent = 0;
      let refusal: { items: Array<{ detail: string }> } | undefined;
      while (!refusal && sent < PLAN_LIMITS.tokenBytes * 2) {
        try {
          v.write(chunk);
          sent += chunk.length;
        } catch (e) {
          refusal = e as typeof refusal;
        }
      }
      expect(refusal?.items[0]?.detail, what).toContain(`${what} in the plan is longer than 16 MiB`);
      expect(sent, what).toBeLessThanOrEqual(PLAN_LIMITS.tokenBytes + chunk.length);
    }
  });

  it('refuses a property name given twice in one object, at any depth', () => {
    const top = problem('{"format_version":"1","resource_changes":[],"resource_changes":[{"address":"a"}]}');
    expect(top).toMatchObject({ pointer: '/resource_changes' });
    expect(top.detail).toContain('"resource_changes" appears twice in one object');
    const inner = JSON.stringify({ format_version: '1', resource_changes: [change(['create'])] }).replace(
      '"tags":',
      '"acl":"private","acl":"public-read","tags":',
    );
    expect(problem(inner)).toMatchObject({ pointer: '/resource_changes/0/change/after/acl' });
  });

  it('allows the same name in sibling and nested objects', () => {
    const plan = JSON.stringify({
      format_version: '1',
      resource_changes: [change(['create']), change(['create'])],
      a: { a: { a: 1 } },
    });
    expect(validate(plan, 5)).toMatchObject({ resourceAdditions: 2 });
  });

  it('refuses an object with more properties than the limit', () => {
    const names = Array.from({ length: PLAN_LIMITS.keysPerObject + 1 }, (_, i) => `"k${i}":0`).join(',');
    const p = problem(`{"format_version":"1","resource_changes":[],"variables":{${names}}}`);
    expect(p.pointer).toBe(`/variables/k${PLAN_LIMITS.keysPerObject}`);
    expect(p.detail).toContain(`more than ${PLAN_LIMITS.keysPerObject} properties`);
  });

  it('bounds the property names held at once, and frees them as objects close', () => {
    const long = (c: string) => c.repeat(PLAN_LIMITS.heldKeyBytes / 4 + 1); // charged twice its length
    const closedEach = `{"format_version":"1","resource_changes":[],"a":{"${long('x')}":1},"b":{"${long('y')}":1}}`;
    expect(validate(closedEach, 64 * 1024)).toMatchObject({ hasChanges: false });
    const openTogether = `{"format_version":"1","resource_changes":[],"a":{"${long('x')}":1,"${long('y')}":1}}`;
    expect(() => validate(openTogether, 64 * 1024)).toThrow(/of property names/);
  });

  it('cuts very long property names in pointers', () => {
    const name = 'n'.repeat(10_000);
    const p = problem(`{"format_version":"1","resource_changes":[],"${name}":1,"${name}":2}`);
    expect(p.pointer).toBe(`/${'n'.repeat(256)}…`);
  });
});
