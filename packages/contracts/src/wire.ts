/** `google.protobuf.Timestamp` as it is written (seconds as number or decimal string). */
export interface Timestamp {
  seconds?: number | string | { toString(): string };
  nanos?: number;
}
/** `google.protobuf.Timestamp` as the loader decodes it (`longs: Number`). */
export interface Timestamp__Output {
  seconds: number;
  nanos: number;
}

/**
 * Conversions between `google.protobuf.Timestamp` and the values the services and the gateway
 * work with. With the shared loader options (`longs: Number`) a decoded Timestamp's `seconds` is a
 * number; a message-typed field that is unset decodes as `null`, which is how a nullable
 * time travels (no empty strings).
 */

const MS_PER_DAY = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the range of four-digit years. */
const MIN_FAST_MS = -62_167_219_200_000;
const MAX_FAST_MS = 253_402_300_799_999;
const PAD2 = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const PAD3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const DAYS_IN_MONTH = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The decimal value of `n` digits of `s` from `at`, or -1 if one is not a digit. */
function digits(s: string, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/**
 * Epoch milliseconds of `YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z` with every field in range (what the
 * services hand over: Postgres timestamptz as packages/db formats it), by arithmetic; NaN for any
 * other text, which then goes to Date.parse (its other accepted forms, day overflow, hour 24,
 * six-digit years). The fraction is truncated to milliseconds, as Date.parse does.
 */
function parseIsoUtc(s: string): number {
  const len = s.length;
  if (len < 20 || len > 30 || s.charCodeAt(len - 1) !== 90 /* Z */) return Number.NaN;
  if (
    s.charCodeAt(4) !== 45 ||
    s.charCodeAt(7) !== 45 ||
    s.charCodeAt(10) !== 84 /* T */ ||
    s.charCodeAt(13) !== 58 ||
    s.charCodeAt(16) !== 58
  )
    return Number.NaN;
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  const hour = digits(s, 11, 2);
  const minute = digits(s, 14, 2);
  const second = digits(s, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23) return Number.NaN;
  if (minute < 0 || minute > 59 || second < 0 || second > 59) return Number.NaN;
  if (day > (month === 2 && isLeap(year) ? 29 : (DAYS_IN_MONTH[month] ?? 0))) return Number.NaN;
  let ms = 0;
  if (len > 20) {
    // `.` then 1–9 digits before the Z.
    if (s.charCodeAt(19) !== 46 || len === 21) return Number.NaN;
    const n = len - 21;
    const fraction = digits(s, 20, Math.min(n, 3));
    if (fraction < 0 || (n > 3 && digits(s, 23, n - 3) < 0)) return Number.NaN;
    ms = n === 1 ? fraction * 100 : n === 2 ? fraction * 10 : fraction;
  }
  return daysFromCivil(year, month, day) * MS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + ms;
}

/** `new Date(ms).toISOString()` for an integral time in years 0000–9999, by arithmetic. */
function isoFromMs(ms: number): string {
  const days = Math.floor(ms / MS_PER_DAY);
  let rest = ms - days * MS_PER_DAY;
  // H. Hinnant's civil_from_days.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const millis = rest % 1000;
  rest = (rest - millis) / 1000;
  const second = rest % 60;
  rest = (rest - second) / 60;
  const minute = rest % 60;
  const hour = (rest - minute) / 60;
  return `${PAD2[Math.floor(year / 100)]}${PAD2[year % 100]}-${PAD2[month]}-${PAD2[day]}T${PAD2[hour]}:${PAD2[minute]}:${PAD2[second]}.${PAD3[millis]}Z`;
}

/**
 * A Timestamp for `value` (a Date, an RFC 3339 string or epoch milliseconds), millisecond precision.
 * The usual text (`2026-11-24T10:00:00.000Z`) is read by arithmetic; any other text as Date.parse
 * reads it.
 */
export function toTimestamp(value: Date | string | number): { seconds: number; nanos: number } {
  let ms: number;
  if (typeof value === 'string') {
    ms = parseIsoUtc(value);
    if (Number.isNaN(ms)) ms = Date.parse(value);
  } else {
    ms = value instanceof Date ? value.getTime() : value;
  }
  if (!Number.isFinite(ms)) throw new RangeError(`not a time: ${String(value)}`);
  const seconds = Math.floor(ms / 1000);
  // seconds as a number (exact far beyond any real time), so protobufjs' verify accepts it.
  return { seconds, nanos: (ms - seconds * 1000) * 1_000_000 };
}

/** `toTimestamp`, or `null` for a missing value (a nullable time). */
export function toOptionalTimestamp(
  value: Date | string | number | null | undefined,
): { seconds: number; nanos: number } | null {
  return value === null || value === undefined ? null : toTimestamp(value);
}

/** Epoch milliseconds of a Timestamp (sub-millisecond digits dropped), as `new Date()` takes them. */
function timestampMs(ts: Timestamp__Output | Timestamp): number {
  const s = ts.seconds;
  const seconds = typeof s === 'number' ? s : Number(typeof s === 'string' ? s : String(s ?? 0));
  return seconds * 1000 + Math.floor((ts.nanos ?? 0) / 1_000_000);
}

/** The Date a decoded Timestamp stands for (sub-millisecond digits are dropped), or `null` if unset. */
export function fromTimestamp(ts: Timestamp__Output | Timestamp | null | undefined): Date | null {
  return ts ? new Date(timestampMs(ts)) : null;
}

/**
 * The RFC 3339 text (`2026-11-24T10:00:00.000Z`) the API serves for a Timestamp, or `null` if
 * unset: exactly `fromTimestamp(ts).toISOString()`, formatted by arithmetic for years 0000–9999
 * (anything else, including a time Date refuses with RangeError, goes through Date).
 */
export function timestampToIso(ts: Timestamp__Output | Timestamp | null | undefined): string | null {
  if (!ts) return null;
  const ms = timestampMs(ts);
  return Number.isInteger(ms) && ms >= MIN_FAST_MS && ms <= MAX_FAST_MS
    ? isoFromMs(ms)
    : new Date(ms).toISOString();
}
