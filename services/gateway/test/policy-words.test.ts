import { AppError } from '@policyhub/errors';
import { describe, expect, it } from 'vitest';
import { RequestDocument } from '../src/jsonapi/body.js';
import {
  createPolicyFields,
  readPolicyAttributes,
  updatePolicyFields,
} from '../src/resources/policies/body.js';
import { createRequest, readPolicySetBody, updateRequest } from '../src/resources/policy-sets/body.js';
import { readKindFilter } from '../src/resources/policy-sets/words.js';

// Requests to policy-sets carry enums and explicit presence (ADR 0035): the gateway reads the
// words and the "empty means none" leniency of the API, and answers an unknown word with the 422
// the service gave before (same code, detail and field).

const policy = (attributes: Record<string, unknown>) =>
  readPolicyAttributes(new RequestDocument({ data: { type: 'policies', attributes } }));
const policySet = (attributes: Record<string, unknown>) =>
  readPolicySetBody(new RequestDocument({ data: { type: 'policy-sets', attributes } }));

function rejection(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { code: err.code, items: err.items };
  }
  throw new Error('expected a 422');
}

describe('policy attributes', () => {
  it('reads kinds in either vocabulary and levels as enum values', () => {
    expect(policy({ name: 'p', kind: 'opa', 'enforcement-level': 'hard-mandatory' })).toMatchObject({
      kind: 'POLICY_KIND_B',
      enforcementLevel: 'ENFORCEMENT_LEVEL_HARD_MANDATORY',
    });
    expect(policy({ name: 'p', kind: 'kind_a' }).kind).toBe('POLICY_KIND_A');
  });

  it('answers unknown words with the former service 422', () => {
    expect(rejection(() => policy({ name: 'p', kind: 'kind_z' }))).toEqual({
      code: 'POLICY_SETS_INVALID_KIND',
      items: [{ title: 'invalid attribute', detail: 'Kind must be kind_a or kind_b', field: 'kind' }],
    });
    expect(rejection(() => policy({ name: 'p', 'enforcement-level': 'mandatory-ish' }))).toEqual({
      code: 'POLICY_SETS_INVALID_ENFORCEMENT_LEVEL',
      items: [
        {
          title: 'invalid attribute',
          detail: 'Enforcement level must be one of advisory, soft-mandatory, hard-mandatory, mandatory',
          field: 'enforcement_level',
        },
      ],
    });
    expect(rejection(() => policy({ name: 'p', enforce: [{ mode: 'strict' }] })).items[0]?.field).toBe(
      'enforce[0].mode',
    );
  });

  it('takes enforcement-level over the deprecated mode, which is then not read', () => {
    const a = policy({ name: 'p', 'enforcement-level': 'advisory', enforce: [{ mode: 'strict' }] });
    expect(a).toMatchObject({ enforcementLevel: 'ENFORCEMENT_LEVEL_ADVISORY', enforceMode: undefined });
    expect(policy({ name: 'p', 'enforcement-level': '', enforce: [{ mode: 'advisory' }] })).toMatchObject({
      enforcementLevel: undefined,
      enforceMode: 'ENFORCEMENT_LEVEL_ADVISORY',
    });
  });

  it('sends nothing for an empty or null text on create, and clears it on update', () => {
    const a = policy({ name: 'p', description: '', query: null });
    expect(createPolicyFields(a)).toMatchObject({ description: undefined, query: undefined });
    expect(updatePolicyFields(a)).toMatchObject({ description: {}, query: {}, enforcePath: undefined });
    expect(updatePolicyFields(policy({ description: 'd' })).description).toEqual({ value: 'd' });
  });
});

describe('policy set bodies', () => {
  it('treats an empty or null tool version as not given and "" as null for nullable texts', () => {
    const b = policySet({ name: 's', 'policy-tool-version': '', description: '', 'policies-path': '' });
    expect(createRequest('acme', b)).toMatchObject({
      policyToolVersion: undefined,
      description: undefined,
      policiesPath: undefined,
    });
    expect(
      updateRequest('polset-1', policySet({ 'policy-tool-version': null, description: null })),
    ).toMatchObject({
      policyToolVersion: undefined,
      description: {},
      policiesPath: undefined,
    });
  });

  it('reads the kind and leaves unset VCS members unset', () => {
    const b = policySet({
      name: 's',
      kind: 'sentinel',
      'vcs-repo': { identifier: 'a/b', 'oauth-token-id': 'ot-1', branch: '' },
    });
    expect(b.kind).toBe('POLICY_KIND_A');
    expect(b.vcsRepo).toEqual({ identifier: 'a/b', oauthTokenId: 'ot-1', ingressSubmodules: false });
    expect(rejection(() => policySet({ name: 's', kind: 'rego' })).code).toBe('POLICY_SETS_INVALID_KIND');
  });
});

describe('filter[kind]', () => {
  it('is every kind when absent or empty, one kind in either vocabulary, else the former 422', () => {
    expect(readKindFilter(undefined)).toBeUndefined();
    expect(readKindFilter('')).toBeUndefined();
    expect(readKindFilter('opa')).toBe('POLICY_KIND_B');
    expect(rejection(() => readKindFilter('x'))).toEqual({
      code: 'POLICY_SETS_INVALID_FILTER',
      items: [
        { title: 'invalid attribute', detail: 'filter[kind] must be kind_a or kind_b', field: 'filter.kind' },
      ],
    });
  });
});
