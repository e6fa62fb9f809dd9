import { describe, expect, it } from 'vitest';
import { parseDuration, requireDuration } from './durations.js';

describe('parseDuration', () => {
  it.each([
    ['24h', 24 * 3600e9],
    ['90m', 90 * 60e9],
    ['1.5h', 1.5 * 3600e9],
    ['3600s', 3600e9],
    ['1h30m', 5400e9],
    ['250ms', 250e6],
    ['10us', 10e3],
    ['10µs', 10e3],
    ['10μs', 10e3],
    ['7ns', 7],
    ['.5h', 0.5 * 3600e9],
    ['2.h', 2 * 3600e9],
  ])('%s is %d ns', (text, nanos) => {
    expect(parseDuration(text)).toBeCloseTo(nanos);
  });

  it.each([
    '',
    '24',
    '0',
    'h',
    '.h',
    '1.5',
    '24H',
    '1d',
    '1w',
    '-1h',
    '+1h',
    ' 1h',
    '1h ',
    '1 h',
    '1h-30m',
    'PT1H',
    '1e3s',
  ])('%j is not a duration', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

describe('requireDuration', () => {
  const check = (value: string) => () => requireDuration(value, 'apply_timeout', 'Apply timeout');

  it('accepts positive durations', () => {
    expect(check('2h')).not.toThrow();
  });

  it('rejects zero, malformed and overlong durations with a 422 pointing at the attribute', () => {
    for (const value of ['0s', '0h0m', 'soon', '9999999999h']) {
      expect(check(value), value).toThrow(
        expect.objectContaining({
          kind: 'invalid',
          code: 'ADMIN_ORGS_INVALID_DURATION',
          items: [expect.objectContaining({ field: 'apply_timeout' })],
        }),
      );
    }
  });
});
