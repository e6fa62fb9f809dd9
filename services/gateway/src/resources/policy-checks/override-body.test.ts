import { describe, expect, it } from 'vitest';
import { readOverrideComment } from './override-body.js';

describe('readOverrideComment', () => {
  it('accepts no body, upstream\'s {"comment"} and a JSON:API-style document', () => {
    expect(readOverrideComment(undefined)).toBe('');
    expect(readOverrideComment({})).toBe('');
    expect(readOverrideComment({ comment: null })).toBe('');
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
});
