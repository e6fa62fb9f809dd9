import { describe, expect, it } from 'vitest';
import { parseSentinelConfig } from './sentinel-archive.js';
import { opaPolicies } from '../domain/opa-config.js';

describe("a kind_b set's policies.hcl / policies.json (upstream's layout)", () => {
  it('reads each policy block: query, level (advisory by default), description', async () => {
    const hcl = `policy "public_buckets" {
  query             = "data.terraform.policies.public_buckets.deny"
  enforcement_level = "mandatory"
  description       = "No public buckets"
}
policy "tags" {
  query = "data.terraform.policies.tags.deny"
}
`;
    expect(opaPolicies(await parseSentinelConfig(hcl, 'policies.hcl'))).toEqual([
      {
        name: 'public_buckets',
        enforcementLevel: 'mandatory',
        query: 'data.terraform.policies.public_buckets.deny',
        description: 'No public buckets',
      },
      {
        name: 'tags',
        enforcementLevel: 'advisory',
        query: 'data.terraform.policies.tags.deny',
        description: '',
      },
    ]);
  });

  it("reads HCL's JSON syntax, with one body or a list of label objects", () => {
    const body = { query: 'data.a.deny', enforcement_level: 'advisory' };
    const expected = [{ name: 'a', enforcementLevel: 'advisory', query: 'data.a.deny', description: '' }];
    expect(opaPolicies({ policy: { a: body } })).toEqual(expected);
    expect(opaPolicies({ policy: [{ a: body }] })).toEqual(expected);
    expect(opaPolicies({})).toEqual([]);
  });

  it('refuses a policy without a query, with an unknown level, or declared twice', () => {
    expect(() => opaPolicies({ policy: { a: {} } })).toThrow('policy "a" has no query');
    expect(() => opaPolicies({ policy: { a: { query: 'q', enforcement_level: 'hard-mandatory' } } })).toThrow(
      /use "advisory" or "mandatory"/,
    );
    expect(() => opaPolicies({ policy: [{ a: { query: 'q' } }, { a: { query: 'q' } }] })).toThrow(
      'policy "a" is declared more than once',
    );
  });
});
