import { documented as doc, env } from '@policyhub/config';
import { DEFAULT_DATABASE_TIMEOUTS } from '@policyhub/db';
import type { DatabaseTimeouts } from './grpc-service.js';

/**
 * Timeouts of every service's Postgres pool (docs/adr/0042-deadlines-when-a-dependency-hangs.md):
 * below the callers' 10 s deadline, so a hung database is a 503 rather than a held request.
 * Read by every service process and by `npm start`.
 */
export const databaseTimeoutsConfigShape = {
  DATABASE_STATEMENT_TIMEOUT_MS: doc(
    env.int(DEFAULT_DATABASE_TIMEOUTS.statementTimeoutMs),
    'milliseconds a statement may run or wait before Postgres cancels it and the call answers 503; a connection silent one second longer is dropped; migrations are exempt ([ADR 0042](adr/0042-deadlines-when-a-dependency-hangs.md)); `0` disables',
  ),
  DATABASE_CONNECT_TIMEOUT_MS: doc(
    env.int(DEFAULT_DATABASE_TIMEOUTS.connectTimeoutMs, 100),
    'milliseconds a new database connection, or a wait for a free one, may take (then 503)',
    '`5000` (at least `100`)',
  ),
};

export const databaseTimeoutsOf = (config: {
  DATABASE_STATEMENT_TIMEOUT_MS: number;
  DATABASE_CONNECT_TIMEOUT_MS: number;
}): DatabaseTimeouts => ({
  statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
  connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
});
