export const isUniqueViolation = (err: unknown, constraint?: string): boolean =>
  typeof err === 'object' &&
  err !== null &&
  (err as { code?: string }).code === '23505' &&
  (constraint === undefined || (err as { constraint?: string }).constraint === constraint);

/** Socket and name-resolution failures on the way to the server (Node's system error codes). */
const networkCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  // The host name does not resolve, e.g. a stopped compose container or a Service being recreated.
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that refuses or drops connections: class 08 (connection exception),
 * class 53 (insufficient resources: too many clients, out of memory, disk full), the 57P0x
 * operator interventions (admin/crash shutdown, cannot connect now, database dropped, idle
 * session timeout), 55000 for a database not accepting connections (ALLOW_CONNECTIONS false),
 * class 28 (the role or password was refused: a rotated or missing credential), and 57014 for
 * a statement cancelled by its statement timeout (a lock held elsewhere, an overloaded server).
 */
const isUnavailableSqlState = (code: string): boolean =>
  /^(08|53|28)[0-9A-Z]{3}$/.test(code) || /^57P0[1-5]$/.test(code) || code === '55000' || code === '57014';

/** node-postgres' own wording for a dead, closed or never-established connection. */
const unavailableMessage =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Cannot use a pool after calling end on the pool|Query read timeout|connection timeout/i;

/**
 * True when Postgres itself is unreachable, refusing connections or going away (not a problem
 * with the query): the caller should answer 503 and try again later. Looks through `cause` and
 * AggregateError's `errors` (Node reports a refused dual-stack connect as one).
 */
export const isConnectionError = (err: unknown, depth = 0): boolean => {
  if (typeof err !== 'object' || err === null || depth > 5) return false;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && (networkCodes.has(e.code) || isUnavailableSqlState(e.code))) return true;
  if (typeof e.message === 'string' && unavailableMessage.test(e.message)) return true;
  if (e.cause !== undefined && isConnectionError(e.cause, depth + 1)) return true;
  return Array.isArray(e.errors) && e.errors.some((inner) => isConnectionError(inner, depth + 1));
};
