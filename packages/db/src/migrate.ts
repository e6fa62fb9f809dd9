import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from './db.js';

export interface Migration {
  /** e.g. `0001_create_policy_sets`; applied in lexical order. */
  name: string;
  sql: string;
}

/** SHA-256 of a migration's SQL, line endings normalised (a Windows checkout is not an edit). */
export const migrationChecksum = (sql: string): string =>
  createHash('sha256').update(sql.replace(/\r\n/g, '\n')).digest('hex');

/** An applied migration whose SQL changed since: the database no longer matches the code. */
export class EditedMigrationError extends Error {
  constructor(schema: string, names: string[]) {
    super(
      `${schema}: applied migration${names.length > 1 ? 's' : ''} ${names.join(', ')} changed after being applied; ` +
        'restore the original file and put the change in a new migration (docs/adr/0026-migration-checksums.md)',
    );
    this.name = 'EditedMigrationError';
  }
}

export function readMigrationsDir(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ name: f.replace(/\.sql$/, ''), sql: readFileSync(join(dir, f), 'utf8') }));
}

/**
 * Applies pending migrations to the service's schema. An advisory lock keyed by the schema name
 * serialises concurrent starts (several replicas, or the migration Job and a pod), and each
 * migration runs in its own transaction together with its bookkeeping row and checksum. An
 * applied migration whose file changed since fails the start (EditedMigrationError) instead of
 * being skipped silently; rows applied before checksums existed adopt the current file's.
 */
export async function runMigrations(db: Db, migrations: Migration[]): Promise<string[]> {
  const lockKey = createHash('sha256').update(`policyhub:migrate:${db.schema}`).digest().readBigInt64BE(0);
  // Without the pool's timeouts: waiting for the lock or building an index may take long.
  const client = await db.connectWithoutTimeouts();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [lockKey.toString()]);
    // Only create the schema when missing: a role that owns an existing schema needs no CREATE
    // privilege on the database (distributed deployments pre-create schema and role).
    const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [db.schema]);
    if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${db.schema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${db.schema}.schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    await client.query(`ALTER TABLE ${db.schema}.schema_migrations ADD COLUMN IF NOT EXISTS checksum text`);
    const done = new Map(
      (
        await client.query<{ name: string; checksum: string | null }>(
          `SELECT name, checksum FROM ${db.schema}.schema_migrations`,
        )
      ).rows.map((r) => [r.name, r.checksum]),
    );
    const edited = migrations
      .filter((m) => {
        const stored = done.get(m.name);
        return typeof stored === 'string' && stored !== migrationChecksum(m.sql);
      })
      .map((m) => m.name);
    if (edited.length > 0) throw new EditedMigrationError(db.schema, edited);
    for (const m of migrations) {
      if (done.has(m.name)) {
        if (done.get(m.name) === null) {
          await client.query(`UPDATE ${db.schema}.schema_migrations SET checksum = $2 WHERE name = $1`, [
            m.name,
            migrationChecksum(m.sql),
          ]);
        }
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(`SET LOCAL search_path TO ${db.schema}, public`);
        await client.query(m.sql);
        await client.query(`INSERT INTO ${db.schema}.schema_migrations (name, checksum) VALUES ($1, $2)`, [
          m.name,
          migrationChecksum(m.sql),
        ]);
        await client.query('COMMIT');
        applied.push(m.name);
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${db.schema}/${m.name} failed: ${(err as Error).message}`);
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [lockKey.toString()]).catch(() => {});
    await client.end().catch(() => {});
  }
  return applied;
}
