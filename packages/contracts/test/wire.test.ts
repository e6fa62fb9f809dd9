import { describe, expect, it } from 'vitest';
import {
  enumMapping,
  fromTimestamp,
  timestampToIso,
  toOptionalTimestamp,
  toTimestamp,
} from '../src/index.js';
import { seededRandom } from './support/seeded-random.js';

describe('timestamps', () => {
  it('round-trips the RFC 3339 text the API serves, to the millisecond', () => {
    for (const iso of ['2026-11-24T10:00:00.000Z', '2026-11-24T10:00:00.123Z', '1969-12-31T23:59:59.999Z']) {
      const ts = toTimestamp(iso);
      expect(timestampToIso(ts)).toBe(iso);
      // Seconds as a decimal string (a Long's text) read the same as the loader's number.
      expect(timestampToIso({ seconds: String(ts.seconds), nanos: ts.nanos })).toBe(iso);
    }
    expect(toTimestamp(new Date('2026-11-24T10:00:00.250Z'))).toEqual({
      seconds: 1795514400,
      nanos: 250_000_000,
    });
  });

  it('carries a missing time as null both ways', () => {
    expect(toOptionalTimestamp(null)).toBeNull();
    expect(toOptionalTimestamp(undefined)).toBeNull();
    expect(fromTimestamp(null)).toBeNull();
    expect(timestampToIso(undefined)).toBeNull();
  });

  it('refuses text that is not a time', () => {
    expect(() => toTimestamp('yesterday')).toThrow(RangeError);
  });
});

/** The Date-based conversions the arithmetic ones replace: the oracle they must agree with. */
const viaDate = {
  toTimestamp(value: string): { seconds: number; nanos: number } {
    const ms = Date.parse(value);
    if (!Number.isFinite(ms)) throw new RangeError(`not a time: ${value}`);
    const seconds = Math.floor(ms / 1000);
    return { seconds, nanos: (ms - seconds * 1000) * 1_000_000 };
  },
  timestampToIso(ts: { seconds: string | number; nanos: number }): string {
    return new Date(Number(String(ts.seconds)) * 1000 + Math.floor(ts.nanos / 1_000_000)).toISOString();
  },
};

/** Both give the same value, or both throw the same kind of error. */
function sameOutcome<T>(actual: () => T, expected: () => T): void {
  let want: { value?: T; error?: unknown };
  try {
    want = { value: expected() };
  } catch (error) {
    want = { error };
  }
  if ('error' in want) expect(actual).toThrow((want.error as Error).constructor as ErrorConstructor);
  else expect(actual()).toEqual(want.value);
}

/** 0000-01-01T00:00:00.000Z and 10000-01-01T00:00:00.000Z. */
const YEAR_0000 = -62_167_219_200_000;
const YEAR_10000 = 253_402_300_800_000;

describe('timestamp conversions agree with Date', () => {
  const next = seededRandom(14);

  it('formats a Timestamp as toISOString does, across years 0000–9999 and beyond', () => {
    expect(new Date(YEAR_0000).toISOString()).toBe('0000-01-01T00:00:00.000Z');
    const instants: number[] = [0, -1, 1, -1000, 999, YEAR_0000, YEAR_0000 - 1, YEAR_10000 - 1, YEAR_10000];
    instants.push(8.64e15, -8.64e15, 8.64e15 - 1, -8.64e15 + 1);
    // Every month end and the day after, leap years and the century rules included.
    for (const year of [0, 1, 4, 100, 1600, 1700, 1900, 1969, 1970, 2000, 2024, 2100, 2400, 9999]) {
      for (let month = 0; month < 12; month++) {
        const start = new Date(0);
        start.setUTCFullYear(year, month, 1);
        const t = start.getTime();
        instants.push(t, t - 1, t + 1);
      }
    }
    for (let i = 0; i < 50_000; i++) {
      const span = i % 4 === 0 ? 8.64e15 * 2 : YEAR_10000 - YEAR_0000;
      const low = i % 4 === 0 ? -8.64e15 : YEAR_0000;
      instants.push(Math.floor(low + next() * span));
    }
    for (const ms of instants) {
      const seconds = Math.floor(ms / 1000);
      const ts = {
        seconds: String(seconds),
        nanos: (ms - seconds * 1000) * 1_000_000 + Math.floor(next() * 1e6),
      };
      expect(timestampToIso(ts)).toBe(viaDate.timestampToIso(ts));
      expect(timestampToIso({ seconds, nanos: ts.nanos })).toBe(viaDate.timestampToIso(ts));
    }
  });

  it('gives the same text for odd Timestamps (negative nanos, fractional or invalid seconds)', () => {
    const odd: Array<{ seconds: string | number; nanos: number }> = [
      { seconds: '0', nanos: -1 },
      { seconds: '-1', nanos: 999_999_999 },
      { seconds: '10', nanos: 1_500_000_000 },
      { seconds: 1.5, nanos: 0 },
      { seconds: -1.5, nanos: 0 },
      { seconds: -0, nanos: 0 },
      { seconds: '', nanos: 0 },
      { seconds: '253402300799', nanos: 999_999_999 },
      { seconds: '253402300800', nanos: 0 },
      { seconds: '-62167219200', nanos: 0 },
      { seconds: '-62167219201', nanos: 999_000_000 },
      { seconds: '8640000000000', nanos: 0 },
      { seconds: '8640000000001', nanos: 0 },
      { seconds: 'x', nanos: 0 },
      { seconds: Number.POSITIVE_INFINITY, nanos: 0 },
    ];
    for (const ts of odd)
      sameOutcome(
        () => timestampToIso(ts),
        () => viaDate.timestampToIso(ts),
      );
    expect(() => timestampToIso({ seconds: '8640000000001', nanos: 0 })).toThrow(RangeError);
  });

  it('reads RFC 3339 text as Date.parse does, whatever the fraction length', () => {
    for (let i = 0; i < 30_000; i++) {
      const ms = Math.floor(YEAR_0000 + next() * (YEAR_10000 - YEAR_0000));
      const iso = new Date(ms).toISOString();
      const digits = Math.floor(next() * 10); // 0 to 9 fraction digits
      const extra = String(Math.floor(next() * 1e6)).padStart(6, '0');
      const text =
        digits === 0
          ? `${iso.slice(0, 19)}Z`
          : `${iso.slice(0, 20)}${(iso.slice(20, 23) + extra).slice(0, digits)}Z`;
      expect(toTimestamp(text)).toEqual(viaDate.toTimestamp(text));
    }
  });

  it('reads every other text as Date.parse does, or refuses it with RangeError as Date.parse would', () => {
    const texts = [
      '2026-02-29T00:00:00Z',
      '2024-02-29T00:00:00Z',
      '2026-02-30T00:00:00.000Z',
      '2100-02-29T00:00:00Z',
      '2000-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-11-24T24:00:00Z',
      '2026-11-24T23:59:60Z',
      '2026-11-24T23:60:00Z',
      '2026-13-01T00:00:00Z',
      '2026-00-01T00:00:00Z',
      '2026-01-00T00:00:00Z',
      '2026-11-24T10:00:00.Z',
      '2026-11-24T10:00:00.1234567891234Z',
      '2026-11-24t10:00:00Z',
      '2026-11-24T10:00:00z',
      '2026-11-24 10:00:00Z',
      '2026-11-24T10:00Z',
      '2026-11-24T10:00:00+01:00',
      '2026-11-24T10:00:00.123+00:00',
      '2026-11-24',
      '+002026-11-24T10:00:00.000Z',
      '-000001-01-01T00:00:00.000Z',
      '+275760-09-13T00:00:00.000Z',
      '+275760-09-13T00:00:00.001Z',
      '0000-01-01T00:00:00.000Z',
      '9999-12-31T23:59:59.999Z',
      '2026-11-24T1a:00:00Z',
      '2026-11-24T10:00:00.12a4Z',
      '2026-11-24T10:00:00.1234a6Z',
      '２026-11-24T10:00:00Z',
      'yesterday',
      '',
    ];
    // And text mutated one character at a time from valid instants.
    const alphabet = '0123456789-:.TZtz +/a';
    for (let i = 0; i < 20_000; i++) {
      const iso = new Date(Math.floor(YEAR_0000 + next() * (YEAR_10000 - YEAR_0000))).toISOString();
      const at = Math.floor(next() * iso.length);
      texts.push(iso.slice(0, at) + alphabet[Math.floor(next() * alphabet.length)] + iso.slice(at + 1));
    }
    for (const text of texts)
      sameOutcome(
        () => toTimestamp(text),
        () => viaDate.toTimestamp(text),
      );
  });
});

describe('enum mappings', () => {
  const kind = enumMapping('PolicySetKind', {
    POLICY_SET_KIND_SENTINEL: 'sentinel',
    POLICY_SET_KIND_OPA: 'opa',
  });

  it('maps enum values to words and back', () => {
    expect(kind.words).toEqual(['sentinel', 'opa']);
    expect(kind.toWord('POLICY_SET_KIND_OPA')).toBe('opa');
    expect(kind.fromWord('sentinel')).toBe('POLICY_SET_KIND_SENTINEL');
  });

  it('gives no enum value for an unknown word (user input), including inherited keys', () => {
    expect(kind.fromWord('rego')).toBeUndefined();
    expect(kind.fromWord('__proto__')).toBeUndefined();
    expect(kind.fromWord('toString')).toBeUndefined();
    expect(() => kind.fromKnownWord('rego')).toThrow(/PolicySetKind/);
  });

  it('treats the zero value as a bug, not a word', () => {
    expect(() => kind.toWord('POLICY_SET_KIND_UNSPECIFIED')).toThrow(/no word/);
  });
});
