import { describe, expect, it } from 'vitest';
import {
  enumMapping,
  fromTimestamp,
  timestampToIso,
  toOptionalTimestamp,
  toTimestamp,
} from '../src/index.js';

describe('timestamps', () => {
  it('round-trips the RFC 3339 text the API serves, to the millisecond', () => {
    for (const iso of ['2026-11-24T10:00:00.000Z', '2026-11-24T10:00:00.123Z', '1969-12-31T23:59:59.999Z']) {
      const ts = toTimestamp(iso);
      expect(timestampToIso(ts)).toBe(iso);
      // As the loader decodes it: seconds as a decimal string.
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
