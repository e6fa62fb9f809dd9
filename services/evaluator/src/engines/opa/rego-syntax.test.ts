import { describe, expect, it } from 'vitest';
import { regoSyntaxFor } from './rego-syntax.js';

describe("a set's Rego syntax, from its policy-tool-version", () => {
  it('reads v0 for OPA before 1.0, v1 from 1.0, and v1 falling back to v0 for latest', () => {
    expect(regoSyntaxFor('0.61.0')).toEqual({ first: 'v0' });
    expect(regoSyntaxFor('v0.70.0')).toEqual({ first: 'v0' });
    expect(regoSyntaxFor('1.0.0')).toEqual({ first: 'v1' });
    expect(regoSyntaxFor('1.4.2')).toEqual({ first: 'v1' });
    expect(regoSyntaxFor('latest')).toEqual({ first: 'v1', orElse: 'v0' });
    expect(regoSyntaxFor(undefined)).toEqual({ first: 'v1', orElse: 'v0' });
    expect(regoSyntaxFor('')).toEqual({ first: 'v1', orElse: 'v0' });
  });
});
