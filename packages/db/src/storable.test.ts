import { describe, expect, it } from 'vitest';
import { MAX_DETAILS_DEPTH, storableText, unstorableJson, unstorableText } from './storable.js';

describe('what an evaluator may report', () => {
  it('finds NUL and unpaired surrogates in text, and accepts paired ones', () => {
    expect(unstorableText('aws_s3_bucket.a\u0000b')).toMatch(/NUL character/);
    expect(unstorableText('x\uD800y')).toMatch(/unpaired UTF-16 surrogate/);
    expect(unstorableText('x\uDC00')).toMatch(/unpaired/);
    expect(unstorableText('emoji \u{1F600} and ümlauts')).toBeUndefined();
  });

  it('makes text storable by replacing what Postgres refuses with U+FFFD', () => {
    expect(storableText('a\u0000b\uD800c\u{1F600}')).toBe('a\uFFFDb\uFFFDc\u{1F600}');
  });

  it('refuses JSON nested too deep without recursing, and names where a bad string sits', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200_000; i++) deep = { a: [deep] };
    expect(unstorableJson(deep)).toBe(`it nests deeper than ${MAX_DETAILS_DEPTH} levels`);
    let ok: unknown = 1;
    for (let i = 0; i < MAX_DETAILS_DEPTH - 1; i++) ok = [ok];
    expect(unstorableJson(ok)).toBeUndefined();
    expect(unstorableJson({ sets: { 'a/b': ['fine', 'bad\u0000'] } })).toBe(
      'the string at /sets/a~1b/1 contains a NUL character (U+0000)',
    );
    expect(unstorableJson({ ['k\uDBFF']: 1 })).toMatch(/^a key at \/ contains an unpaired/);
  });
});
