export const isUniqueViolation = (err: unknown, constraint?: string): boolean =>
  typeof err === 'object' &&
  err !== null &&
  (err as { code?: string }).code === '23505' &&
  (constraint === undefined || (err as { constraint?: string }).constraint === constraint);

const connectionCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '08006',
  '08001',
  '08003',
]);

/** True when Postgres itself is unreachable or shutting down (not a problem with the query). */
export const isConnectionError = (err: unknown): boolean => {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: string; message?: string };
  if (e.code && connectionCodes.has(e.code)) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
    e.message ?? '',
  );
};
