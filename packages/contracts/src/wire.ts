/** `google.protobuf.Timestamp` as it is written (seconds as number or decimal string). */
export interface Timestamp {
  seconds?: number | string | { toString(): string };
  nanos?: number;
}
/** `google.protobuf.Timestamp` as the loader decodes it (`longs: String`). */
export interface Timestamp__Output {
  seconds: string;
  nanos: number;
}

/**
 * Conversions between `google.protobuf.Timestamp` and the values the services and the gateway
 * work with. With the shared loader options (`longs: String`) a decoded Timestamp's `seconds` is a
 * decimal string; a message-typed field that is unset decodes as `null`, which is how a nullable
 * time travels (no empty strings).
 */

/** A Timestamp for `value` (a Date, an RFC 3339 string or epoch milliseconds), millisecond precision. */
export function toTimestamp(value: Date | string | number): { seconds: number; nanos: number } {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
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

/** The Date a decoded Timestamp stands for (sub-millisecond digits are dropped), or `null` if unset. */
export function fromTimestamp(ts: Timestamp__Output | Timestamp | null | undefined): Date | null {
  if (!ts) return null;
  const seconds = Number(String(ts.seconds ?? 0));
  return new Date(seconds * 1000 + Math.floor((ts.nanos ?? 0) / 1_000_000));
}

/** The RFC 3339 text (`2026-11-24T10:00:00.000Z`) the API serves for a Timestamp, or `null` if unset. */
export function timestampToIso(ts: Timestamp__Output | Timestamp | null | undefined): string | null {
  return fromTimestamp(ts)?.toISOString() ?? null;
}
