import { describe, expect, it } from 'vitest';
import { forTerminal, jsonForTerminal } from './terminal.mjs';

/** The control characters (C0 but tab and newline, DEL, C1, bidirectional overrides) in `text`. */
const controls = (/** @type {string} */ text) =>
  [...text].filter((c) => {
    const n = /** @type {number} */ (c.codePointAt(0));
    return (n < 0x20 && n !== 0x09 && n !== 0x0a) || (n >= 0x7f && n <= 0x9f) || (n >= 0x202a && n <= 0x202e);
  });

describe('forTerminal', () => {
  it('keeps ordinary text, tabs and newlines', () => {
    expect(forTerminal('FALSE - p - aws_s3_bucket.a\n\tdetail é ✓')).toBe(
      'FALSE - p - aws_s3_bucket.a\n\tdetail é ✓',
    );
  });

  it('removes colour, cursor, title and hyperlink sequences and stray controls', () => {
    const hostile =
      '\u001b[31mred\u001b[0m \u001b[2K\u001b[1Aup \u001b]0;title\u0007t \u001b]8;;https://x.example\u001b\\link\u001b]8;;\u001b\\' +
      ' \u009b31mc1\u009b0m \rover\bback\u0000nul \u202eevil\u202c \u001bc';
    const out = forTerminal(hostile);
    expect(out).toBe('red up t link c1 overbacknul evil ');
    expect(controls(out)).toEqual([]);
  });

  it('drops an unterminated string sequence to the end', () => {
    expect(forTerminal('ok \u001b]0;never ends')).toBe('ok ');
  });
});

describe('jsonForTerminal', () => {
  it('escapes what JSON.stringify leaves raw, keeping the document equal', () => {
    const value = { output: 'a\u009b31m b\u007f c\u202e d\u001b[0m' };
    const text = jsonForTerminal(JSON.stringify(value));
    expect(controls(text)).toEqual([]);
    expect(JSON.parse(text)).toEqual(value);
  });
});
