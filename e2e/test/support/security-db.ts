import type { Queryable } from '@policyhub/db';
import { waitFor } from '@policyhub/testing';
import type { TestSystem } from './system.js';

const SERVICE_SCHEMAS = ['admin_orgs', 'policy_sets', 'runs', 'storage'];
/** Changed by a background sweeper on its own schedule, not by requests. */
const IGNORED_TABLES = new Set(['runs.object_deletions']);
/** Bookkeeping columns written by reads (authentication notes a token's use once a minute). */
const IGNORED_COLUMNS = new Map([['admin_orgs.authentication_tokens', ['last_used_at']]]);
/** Rows written by authentication itself: a token's first use is a sign-in in the audit trail. */
const IGNORED_ROWS = new Map([['admin_orgs.audit_trail', `action = 'sign_in'`]]);
/** Rows there change when the relay marks them sent; only a new row means a new event. */
const COUNTED_TABLES = new Set(SERVICE_SCHEMAS.map((s) => `${s}.outbox`));

export type Snapshot = Map<string, string>;

/**
 * A fingerprint of every service's data (all schemas live in one database in embedded mode): per
 * table, its row count and a hash of its rows. Two equal snapshots mean nothing was created,
 * changed or deleted anywhere in between.
 */
export class DatabaseProbe {
  private snapshotSql: string | undefined;

  private constructor(private readonly db: Queryable) {}

  static of(t: TestSystem): DatabaseProbe {
    return new DatabaseProbe(t.system.services['admin-orgs']!.db);
  }

  private async buildSnapshotSql(): Promise<string> {
    const { rows } = await this.db.query<{ name: string }>(
      `SELECT table_schema || '.' || table_name AS name FROM information_schema.tables
        WHERE table_schema = ANY($1) AND table_type = 'BASE TABLE' ORDER BY 1`,
      [SERVICE_SCHEMAS],
    );
    const parts = rows
      .map((r) => r.name)
      .filter((name) => !IGNORED_TABLES.has(name))
      .map((name) => {
        if (COUNTED_TABLES.has(name))
          return `SELECT '${name}' AS name, count(*)::text AS fingerprint FROM ${name}`;
        const ignored = IGNORED_COLUMNS.get(name) ?? [];
        const row = ignored.reduce((expr, column) => `(${expr} - '${column}')`, 'to_jsonb(x)');
        const skipped = IGNORED_ROWS.get(name);
        return `SELECT '${name}' AS name, count(*) || ':' || md5(coalesce(string_agg(${row}::text, '|' ORDER BY ${row}::text), ''))
               AS fingerprint FROM ${name} x${skipped ? ` WHERE NOT (${skipped})` : ''}`;
      });
    return parts.join('\nUNION ALL\n');
  }

  async snapshot(): Promise<Snapshot> {
    this.snapshotSql ??= await this.buildSnapshotSql();
    const { rows } = await this.db.query<{ name: string; fingerprint: string }>(this.snapshotSql);
    return new Map(rows.map((r) => [r.name, r.fingerprint]));
  }

  /** Tables whose fingerprint differs, except those in `allowed`. */
  static changedTables(before: Snapshot, after: Snapshot, allowed: readonly string[] = []): string[] {
    return [...new Set([...before.keys(), ...after.keys()])]
      .filter((name) => before.get(name) !== after.get(name) && !allowed.includes(name))
      .sort();
  }

  /**
   * Waits until every outbox is drained. In embedded mode an event is marked sent only after its
   * consumers applied it, so afterwards no background effect of earlier calls is still pending.
   */
  async settle(): Promise<void> {
    const unsent = SERVICE_SCHEMAS.map(
      (s) => `(SELECT count(*) FROM ${s}.outbox WHERE sent_at IS NULL)`,
    ).join(' + ');
    await waitFor(async () => {
      const { rows } = await this.db.query<{ n: number }>(`SELECT (${unsent})::int AS n`);
      return rows[0]!.n === 0;
    });
  }

  /** Tables holding `text` anywhere in a row (secrets must not be stored in the clear). */
  async tablesContaining(text: string): Promise<string[]> {
    const { rows: tables } = await this.db.query<{ name: string }>(
      `SELECT table_schema || '.' || table_name AS name FROM information_schema.tables
        WHERE table_schema = ANY($1) AND table_type = 'BASE TABLE' ORDER BY 1`,
      [SERVICE_SCHEMAS],
    );
    const sql = tables
      .map((t) => `SELECT '${t.name}' AS name FROM ${t.name} x WHERE strpos(x::text, $1) > 0`)
      .join(' UNION ');
    const { rows } = await this.db.query<{ name: string }>(sql, [text]);
    return rows.map((r) => r.name).sort();
  }

  /** Dead letters of every service: events a consumer gave up on. */
  async deadLetters(): Promise<Array<{ consumer: string; topic: string; error: string }>> {
    const { rows } = await this.db.query<{ consumer: string; topic: string; error: string }>(
      SERVICE_SCHEMAS.map((s) => `SELECT consumer, topic, error FROM ${s}.dead_letters`).join(' UNION ALL '),
    );
    return rows;
  }
}
