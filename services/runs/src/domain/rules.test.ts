import { describe, expect, it } from 'vitest';
import {
  COMMENT_BODY_MAX,
  RUN_MESSAGE_MAX,
  validateCommentBody,
  validateOverrideComment,
  validateRunActionComment,
  validateRunMessage,
} from './rules.js';

describe('text length rules', () => {
  it('pass text up to the limit and refuse one character more, naming the attribute', () => {
    expect(validateRunMessage('m'.repeat(RUN_MESSAGE_MAX))).toHaveLength(RUN_MESSAGE_MAX);
    expect(() => validateRunMessage('m'.repeat(RUN_MESSAGE_MAX + 1))).toThrow(
      `Message is too long (maximum is ${RUN_MESSAGE_MAX} characters)`,
    );
    expect(() => validateCommentBody('b'.repeat(COMMENT_BODY_MAX + 1))).toThrow(
      `Body is too long (maximum is ${COMMENT_BODY_MAX} characters)`,
    );
    expect(() => validateCommentBody('  ')).toThrow("Body can't be blank");
    expect(() => validateOverrideComment('c'.repeat(10_001))).toThrow(
      'Comment is too long (maximum is 10000',
    );
    expect(() => validateRunActionComment('c'.repeat(10_001))).toThrow(
      'Comment is too long (maximum is 10000',
    );
    expect(validateOverrideComment('ok')).toBe('ok');
  });
});
