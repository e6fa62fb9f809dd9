import { invalidAttribute } from '@policyhub/errors';

/**
 * Durations as the spec defines them ("a decimal number with a unit suffix"), in the syntax of Go's
 * time.ParseDuration that upstream uses: one or more `<decimal><unit>` parts, e.g. `24h`, `90m`,
 * `1.5h`, `3600s`, `1h30m`. Units: ns, us, µs (micro sign or Greek mu), ms, s, m, h. Unlike Go, a
 * bare `0`, a sign and whitespace are rejected, and the total must be positive: a timeout of zero
 * or less means nothing.
 */
const NANOS_PER_UNIT = new Map<string, number>([
  ['ns', 1],
  ['us', 1e3],
  ['µs', 1e3],
  ['μs', 1e3],
  ['ms', 1e6],
  ['s', 1e9],
  ['m', 60e9],
  ['h', 3600e9],
]);

const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/** Go's largest duration (max int64 nanoseconds, about 2562047h), as a double. */
const MAX_NANOS = 2 ** 63 - 1;

/** Nanoseconds of a duration string, or undefined when it is not one. */
export function parseDuration(value: string): number | undefined {
  if (value.length === 0 || value.length > 64) return undefined;
  let nanos = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < value.length) {
    const start = PART.lastIndex;
    const match = PART.exec(value);
    if (!match || match.index !== start) return undefined;
    nanos += Number(match[1]) * NANOS_PER_UNIT.get(match[2]!)!;
  }
  return nanos;
}

// ASCII only: error details travel in gRPC metadata.
export const DURATION_HINT =
  'a decimal number with a unit suffix such as 24h, 90m, 1.5h or 3600s (units: ns, us, ms, s, m, h)';

/** Throws a 422 naming the field unless `value` is a positive duration. */
export function requireDuration(value: string, attribute: string, label: string): void {
  const nanos = parseDuration(value);
  const pointer = attribute;
  if (nanos === undefined)
    throw invalidAttribute('ADMIN_ORGS_INVALID_DURATION', pointer, `${label} must be ${DURATION_HINT}`);
  if (nanos <= 0)
    throw invalidAttribute('ADMIN_ORGS_INVALID_DURATION', pointer, `${label} must be greater than zero`);
  if (nanos > MAX_NANOS)
    throw invalidAttribute('ADMIN_ORGS_INVALID_DURATION', pointer, `${label} is too long`);
}
