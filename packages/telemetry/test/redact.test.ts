import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { redactPath } from '../src/redact.js';

describe('redactPath', () => {
  it('hides upload tokens of either shape (sealed, and the random ones of older sessions) and plan log tokens', () => {
    // A sealed upload token: base64url of nonce, sealed session id and expiry, and tag (57 bytes).
    const sealed = randomBytes(57).toString('base64url');
    const legacy = randomBytes(32).toString('base64url');
    const planLog = `k1.${randomBytes(60).toString('base64url')}.${randomBytes(32).toString('base64url')}`;
    for (const token of [sealed, legacy]) {
      expect(redactPath(`/api/v2/uploads/${token}`)).toBe('/api/v2/uploads/:token');
      expect(redactPath(`/api/v2/uploads/${token}?x=1`)).toBe('/api/v2/uploads/:token?x=1');
    }
    expect(redactPath(`/api/v2/plan-logs/${planLog}`)).toBe('/api/v2/plan-logs/:token');
    expect(redactPath('/api/v2/policy-set-versions/polsetver-1')).toBe(
      '/api/v2/policy-set-versions/polsetver-1',
    );
  });
});
