import { describe, expect, it } from 'vitest';
import { readOverrideComment } from './override-body.js';

describe('readOverrideComment', () => {
  it('accepts no body, upstream\'s {"comment"} and a JSON:API-style document', () => {
    expect(readOverrideComment(undefined)).toBeUndefined();
    expect(readOverrideComment({})).toBeUndefined();
    expect(readOverrideComment({ comment: null })).toBeUndefined();
    expect(readOverrideComment({ comment: 'ok by CAB' })).toBe('ok by CAB');
    expect(readOverrideComment({ data: { type: 'policy-checks', attributes: { comment: 'why' } } })).toBe(
      'why',
    );
  });

  it('rejects a comment that is not a string, pointing at it', () => {
    expect(() => readOverrideComment({ comment: 1 })).toThrow(
      expect.objectContaining({ items: [expect.objectContaining({ pointer: '/comment' })] }),
    );
    expect(() => readOverrideComment({ data: { attributes: { comment: [] } } })).toThrow(
      expect.objectContaining({ items: [expect.objectContaining({ pointer: '/data/attributes/comment' })] }),
    );
    expect(() => readOverrideComment('text')).toThrow(/JSON object/);
  });

  it('refuses anything else that is not a justification, at the offending member', () => {
    const pointerOf = (body: unknown) => {
      try {
        readOverrideComment(body);
      } catch (err) {
        return (err as { items: Array<{ pointer?: string }> }).items[0]?.pointer;
      }
      return 'accepted';
    };
    expect(pointerOf({ data: 'x' })).toBe('/data');
    expect(pointerOf({ data: { attributes: [] } })).toBe('/data/attributes');
    expect(pointerOf({ data: { type: 1 } })).toBe('/data/type');
    expect(pointerOf({ comment: null, data: { attributes: { comment: 5 } } })).toBe(
      '/data/attributes/comment',
    );
    expect(pointerOf({ comment: 'a', data: { attributes: { comment: 'b' } } })).toBe(
      '/data/attributes/comment',
    );
    expect(pointerOf({ 'a/b': 1 })).toBe('/a~1b');
    expect(pointerOf({ comment: 'same', data: { attributes: { comment: 'same' } }, meta: {} })).toBe(
      'accepted',
    );
    expect(readOverrideComment({ comment: null, data: { attributes: { comment: 'nested' } } })).toBe(
      'nested',
    );
  });
});
