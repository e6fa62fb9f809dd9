import { describe, expect, it } from 'vitest';
import { LOG_TOKEN_WINDOW_MS, PlanLogTokens } from './plan-log-token.js';

const key = (id: string, fill: string) => ({ id, secret: Buffer.from(fill.repeat(32)) });

describe('plan log tokens', () => {
  it('name the plan and subject, and stop working at the end of the window after the one they were made in', () => {
    let now = 10 * LOG_TOKEN_WINDOW_MS + 5;
    const tokens = new PlanLogTokens([key('k1', 'a')], () => now);
    const token = tokens.mint('plan-1', 'user-1');
    expect(tokens.verify(token)).toEqual({ planId: 'plan-1', subjectId: 'user-1' });
    // The same caller gets the same URL within a window (a stable document).
    now += 10;
    expect(tokens.mint('plan-1', 'user-1')).toBe(token);
    now = 12 * LOG_TOKEN_WINDOW_MS - 1;
    expect(tokens.verify(token)).toBeDefined();
    now = 12 * LOG_TOKEN_WINDOW_MS;
    expect(tokens.verify(token)).toBeUndefined();
  });

  it('survive a key rotation while the old key still verifies, and nothing signed otherwise passes', () => {
    const old = new PlanLogTokens([key('k1', 'a')]);
    const rotated = new PlanLogTokens([key('k2', 'b'), key('k1', 'a')]);
    const token = old.mint('plan-1', 'user-1');
    expect(rotated.verify(token)).toEqual({ planId: 'plan-1', subjectId: 'user-1' });
    expect(new PlanLogTokens([key('k2', 'b')]).verify(token)).toBeUndefined();
    // Same key id, another secret.
    expect(new PlanLogTokens([key('k1', 'c')]).verify(token)).toBeUndefined();
    for (const bad of [
      '',
      '...',
      'k1..',
      `${token}.x`,
      token.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')),
    ]) {
      expect(old.verify(bad), bad).toBeUndefined();
    }
  });
});
