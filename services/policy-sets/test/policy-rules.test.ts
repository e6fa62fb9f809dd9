import { AppError } from '@policyhub/errors';
import { describe, expect, it } from 'vitest';
import { type PolicyInput, resolveNewPolicy, resolvePolicyUpdate } from '../src/domain/policy-rules.js';

const pointerOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return err.items[0]?.field;
  }
};

describe('policy rules', () => {
  it('defaults to kind_a and soft-mandatory', () => {
    expect(resolveNewPolicy({ name: 'p' })).toEqual({
      name: 'p',
      description: null,
      kind: 'kind_a',
      query: null,
      enforcementLevel: 'soft-mandatory',
      enforcePath: null,
    });
  });

  it('takes the level from enforcement-level, else from the deprecated enforce mode', () => {
    expect(resolveNewPolicy({ name: 'p', enforceMode: 'advisory', enforcePath: 'p.x' })).toMatchObject({
      enforcementLevel: 'advisory',
      enforcePath: 'p.x',
    });
    expect(
      resolveNewPolicy({ name: 'p', enforcementLevel: 'hard-mandatory', enforceMode: 'advisory' })
        .enforcementLevel,
    ).toBe('hard-mandatory');
  });

  it.each([
    [{ name: 'bad name' }, 'name'],
    [{ name: 'p', kind: 'kind_b' }, 'query'],
    [{ name: 'p', kind: 'kind_b', query: 'data.x', enforcementLevel: 'hard-mandatory' }, 'enforcement_level'],
    [{ name: 'p', kind: 'kind_b', query: 'data.x', enforceMode: 'soft-mandatory' }, 'enforce[0].mode'],
    [{ name: 'p', enforcementLevel: 'mandatory' }, 'enforcement_level'],
  ] as Array<[PolicyInput, string]>)('rejects %j', (input, pointer) => {
    expect(pointerOf(() => resolveNewPolicy(input))).toBe(pointer);
  });

  it('ignores the query of a kind_a policy; a kind_b one defaults to advisory', () => {
    expect(resolveNewPolicy({ name: 'p', query: 'data.x' }).query).toBeNull();
    expect(resolveNewPolicy({ name: 'p', kind: 'kind_b', query: 'data.x' }).enforcementLevel).toBe(
      'advisory',
    );
  });

  it('updates only what is given and never the kind', () => {
    const current = resolveNewPolicy({ name: 'p', kind: 'kind_b', query: 'data.q', description: 'd' });
    expect(resolvePolicyUpdate(current, { enforcementLevel: 'advisory' })).toEqual({
      ...current,
      enforcementLevel: 'advisory',
    });
    expect(resolvePolicyUpdate(current, { description: null }).description).toBeNull();
    expect(pointerOf(() => resolvePolicyUpdate(current, { query: null }))).toBe('query');
    expect(pointerOf(() => resolvePolicyUpdate(current, { kind: 'kind_a' }))).toBe('kind');
  });
});
