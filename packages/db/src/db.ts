import { createHash } from 'node:crypto';
import pg from 'pg';

export interface DbOptions {
  url: string;
  /** The service's own schema; every connection's search_path is set to it. */
  schema: string;
  max?: number;
  applicationName?: string;
  /**
   * Longest a statement may run before Postgres cancels it (SQLSTATE 57014); a connection that
   * does not answer at all is given up one second later (node-postgres' query_timeout). 0: none.
   */
  statementTimeoutMs?: number;
  /** Longest a new connection may take to be established (or to wait for a free one). */
  connectTimeoutMs?: number;
}

/** Each service's pool answers within its callers' deadline (10 s) even when Postgres hangs. */
export const DEFAULT_DATABASE_TIMEOUTS = { statementTimeoutMs: 5_000, connectTimeoutMs: 5_000 } as const;

/** What node-postgres rejects a query with when the connection stayed silent past query_timeout. */
const QUERY_READ_TIMEOUT = 'Query read timeout';

export interface QueryOptions {
  /**
   * Run as a named prepared statement: each connection parses and plans the text once, then only
   * binds and executes it. For hot, constant statements only (the name comes from the text, and
   * each connection keeps every statement it prepared): a read with subqueries costs Postgres more
   * to plan than to run. List the columns (no `*`), so a column added by a migration while the
   * statement is prepared does not change its result type.
   */
  prepare?: boolean;
}

export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
    options?: QueryOptions,
  ): Promise<pg.QueryResult<R>>;
}

const SET_LOCAL = /^\s*SET LOCAL [a-z_]+ = [a-z0-9_]+(?:\s*;\s*SET LOCAL [a-z_]+ = [a-z0-9_]+)*\s*;?\s*$/i;

const statementNames = new Map<string, string>();
/** The statement's name on every connection: derived from its text, so two texts never share one. */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `ph_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
}

const queryConfig = (text: string, values: unknown[] | undefined, options: QueryOptions | undefined) =>
  options?.prepare ? { name: statementName(text), text, values } : { text, values };

/** Postgres' text form of a timestamptz in a UTC session: `2026-11-24 10:05:32.413456+00`. */
const UTC_TIMESTAMPTZ = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/;

/**
 * A timestamptz as an ISO string with a literal Z and milliseconds, exactly what
 * `new Date(v).toISOString()` gives (fraction truncated to milliseconds), without building a Date
 * for the usual UTC form: a page of rows has two per row. Any other form (a session in another
 * time zone, BC dates, infinity) goes through Date as before.
 */
export function timestamptzToIso(v: string): string {
  const m = UTC_TIMESTAMPTZ.exec(v);
  if (m === null) return new Date(v).toISOString();
  const fraction = m[3];
  const ms =
    fraction === undefined ? '000' : fraction.length >= 3 ? fraction.slice(0, 3) : fraction.padEnd(3, '0');
  return `${m[1]}T${m[2]}.${ms}Z`;
}

type Oid = Parameters<typeof pg.types.getTypeParser>[0];
const TEXT_ARRAY_OID = 1009 as Oid;
const VARCHAR_ARRAY_OID = 1015 as Oid;
const parseQuotedArray = pg.types.getTypeParser(TEXT_ARRAY_OID) as (v: string) => Array<string | null> | null;
/** Characters Postgres quotes an array element for (it quotes an empty element and NULL too). */
const NEEDS_QUOTES = /["\\{}\s]/;

/**
 * A one-dimensional text[] as pg's parser reads it, without its character-by-character walk for
 * the common case of no quoted element (ids, names): `{a,b}` is split on commas. Anything else
 * (quotes, escapes, nesting, bounds, a NULL element) goes to pg's parser.
 */
export function parseTextArray(v: string): Array<string | null> | null {
  if (v === '{}') return [];
  if (v.length < 2 || v.charCodeAt(0) !== 123 || v.charCodeAt(v.length - 1) !== 125)
    return parseQuotedArray(v);
  const inner = v.slice(1, -1);
  if (NEEDS_QUOTES.test(inner)) return parseQuotedArray(v);
  const items = inner.split(',');
  for (const item of items)
    if (item.length === 4 && item.toUpperCase() === 'NULL') return parseQuotedArray(v);
  return items;
}

// Timestamps come back as ISO strings with a literal Z, as the API serves them, and bigint counts as numbers.
pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, timestamptzToIso);
pg.types.setTypeParser(TEXT_ARRAY_OID, parseTextArray);
pg.types.setTypeParser(VARCHAR_ARRAY_OID, parseTextArray);
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/**
 * A service's handle on Postgres: a pool bound to its own schema, transactions, and a query counter
 * that tests use to prove a request's query count does not grow with page size.
 */
export class Db implements Queryable {
  readonly pool: pg.Pool;
  readonly schema: string;
  readonly url: string;
  queryCount = 0;

  private readonly connectTimeoutMs: number;

  constructor(options: DbOptions) {
    if (!/^[a-z_][a-z0-9_]*$/.test(options.schema)) throw new Error(`bad schema name ${options.schema}`);
    this.schema = options.schema;
    this.url = options.url;
    const statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_DATABASE_TIMEOUTS.statementTimeoutMs;
    this.connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_DATABASE_TIMEOUTS.connectTimeoutMs;
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.max ?? 10,
      application_name: options.applicationName ?? options.schema,
      options: `-c search_path=${options.schema},public`,
      connectionTimeoutMillis: this.connectTimeoutMs,
      // Postgres cancels a slow statement (a lock held elsewhere); a hung server or network is
      // noticed by the client a second later, and that connection is then discarded.
      ...(statementTimeoutMs > 0
        ? { statement_timeout: statementTimeoutMs, query_timeout: statementTimeoutMs + 1_000 }
        : {}),
    });
    // An idle client losing its connection (Postgres restart) must not crash the process.
    this.pool.on('error', () => {});
  }

  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
    options?: QueryOptions,
  ): Promise<pg.QueryResult<R>> {
    this.queryCount++;
    return options?.prepare
      ? this.pool.query<R>(queryConfig(text, values, options))
      : this.pool.query<R>(text, values);
  }

  /**
   * Runs fn inside one transaction; commits on success, rolls back on any error. `setLocal`
   * (constant `SET LOCAL name = value` statements) is sent with the BEGIN, in the same round trip.
   */
  async transaction<T>(fn: (tx: Queryable) => Promise<T>, options: { setLocal?: string } = {}): Promise<T> {
    if (options.setLocal !== undefined && !SET_LOCAL.test(options.setLocal))
      throw new Error(`not a list of SET LOCAL statements: ${options.setLocal}`);
    const client = await this.pool.connect();
    // A checked-out client has no pool listener: if Postgres goes away mid-transaction (restart,
    // failover) its 'error' event would be unhandled and crash the process. The pending or next
    // query rejects anyway; remember the error so the dead connection is discarded, not pooled.
    let broken: Error | undefined;
    const onError = (err: Error) => {
      broken ??= err;
    };
    client.on('error', onError);
    const tx: Queryable = {
      query: (text, values, options) => {
        this.queryCount++;
        return options?.prepare
          ? client.query(queryConfig(text, values, options))
          : client.query(text, values);
      },
    };
    try {
      await client.query(options.setLocal ? `BEGIN; ${options.setLocal}` : 'BEGIN');
      const result = await fn(tx);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      // A connection that stopped answering would hold the ROLLBACK as long: discard it instead
      // (Postgres rolls back what it had when the connection goes).
      if ((err as Error | undefined)?.message === QUERY_READ_TIMEOUT) broken ??= err as Error;
      else
        await client.query('ROLLBACK').catch((rollbackError: Error) => {
          broken ??= rollbackError;
        });
      throw err;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  /**
   * A connection outside the pool without statement or query timeouts, for work that may
   * legitimately wait or run long (migrations wait for another replica's migration lock, a
   * listener waits for notifications). The caller ends it.
   */
  async connectWithoutTimeouts(purpose = 'migrate'): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: `${this.schema}-${purpose}`,
      options: `-c search_path=${this.schema},public`,
      connectionTimeoutMillis: this.connectTimeoutMs,
    });
    client.on('error', () => {});
    await client.connect();
    return client;
  }

  async isReady(): Promise<boolean> {
    try {
      await this.pool.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
