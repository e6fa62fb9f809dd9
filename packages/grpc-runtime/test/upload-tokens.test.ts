import { describe, expect, it } from 'vitest';
import { UploadTokens } from '../src/upload-tokens.js';

const key = (id: string, fill: string) => ({ id, secret: Buffer.from(fill.repeat(32)) });
const EXPIRES = Date.parse('2026-01-01T01:00:00.000Z');

describe('upload tokens', () => {
  it('name the session and its expiry, and only the keys open them', () => {
    const tokens = new UploadTokens([key('k1', 'a')]);
    const token = tokens.mint('upl-0123456789abcdef', new Date(EXPIRES).toISOString());
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(tokens.open(token)).toEqual({ sessionId: 'upl-0123456789abcdef', expiresAt: EXPIRES });
    expect(new UploadTokens([key('k1', 'b')]).open(token)).toBeUndefined();
  });

  it('reveal nothing and differ every time they are minted', () => {
    const tokens = new UploadTokens([key('k1', 'a')]);
    const minted = Array.from({ length: 20 }, () => tokens.mint('upl-0123456789abcdef', EXPIRES));
    expect(new Set(minted).size).toBe(minted.length);
    for (const t of minted) {
      expect(t).not.toContain('upl');
      expect(Buffer.from(t, 'base64url').toString('latin1')).not.toContain('upl-0123456789abcdef');
      expect(tokens.open(t)?.sessionId).toBe('upl-0123456789abcdef');
    }
  });

  it('refuse any altered, truncated or extended token', () => {
    const tokens = new UploadTokens([key('k1', 'a')]);
    const token = tokens.mint('upl-0123456789abcdef', EXPIRES);
    const raw = Buffer.from(token, 'base64url');
    for (let i = 0; i < raw.length; i++) {
      const altered = Buffer.from(raw);
      altered[i] = altered[i]! ^ 1;
      expect(tokens.open(altered.toString('base64url')), `byte ${i}`).toBeUndefined();
    }
    expect(tokens.open(raw.subarray(0, raw.length - 1).toString('base64url'))).toBeUndefined();
    expect(tokens.open(`${token}AA`)).toBeUndefined();
    // Stray characters the base64url decoder would ignore make another spelling: refused too.
    expect(tokens.open(`${token}A`)).toBeUndefined();
    for (const junk of ['', 'nope', '..', 'a'.repeat(43), 'a'.repeat(300), `${token}.x`]) {
      expect(tokens.open(junk)).toBeUndefined();
    }
  });

  it('honour rotation: the first key mints, every listed key opens', () => {
    const old = new UploadTokens([key('k1', 'a')]);
    const token = old.mint('upl-0123456789abcdef', EXPIRES);
    const rotated = new UploadTokens([key('k2', 'b'), key('k1', 'a')]);
    expect(rotated.open(token)?.sessionId).toBe('upl-0123456789abcdef');
    expect(old.open(rotated.mint('upl-0123456789abcdef', EXPIRES))).toBeUndefined();
    expect(new UploadTokens([key('k2', 'b')]).open(token)).toBeUndefined();
  });

  it('are not interchangeable with tokens sealed for another session', () => {
    const tokens = new UploadTokens([key('k1', 'a')]);
    const a = Buffer.from(tokens.mint('upl-aaaaaaaaaaaaaaaa', EXPIRES), 'base64url');
    const b = Buffer.from(tokens.mint('upl-bbbbbbbbbbbbbbbb', EXPIRES), 'base64url');
    // Splicing one token's ciphertext into the other's IV and tag opens nothing.
    const spliced = Buffer.concat([
      a.subarray(0, 12),
      b.subarray(12, b.length - 16),
      a.subarray(a.length - 16),
    ]);
    expect(tokens.open(spliced.toString('base64url'))).toBeUndefined();
  });
});
