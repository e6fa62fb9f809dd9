import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from './db.js';

export interface Migration {
  /** e.g. `0001_create_policy_sets`; applied in lexical order. */
  name: string;
  sql: string;
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
 * migration runs in its own transaction together with its bookkeeping row.
 */
export async function runMigrations(db: Db, migrations: Migration[]): Promise<string[]> {
  const lockKey = createHash('sha256').update(`policyhub:migrate:${db.schema}`).digest().readBigInt64BE(0);
  const client = await db.pool.connect();
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
    const done = new Set(
      (await client.query<{ name: string }>(`SELECT name FROM ${db.schema}.schema_migrations`)).rows.map(
        (r) => r.name,
      ),
    );
    for (const m of migrations) {
      if (done.has(m.name)) continue;
      await client.query('BEGIN');
      try {
        await client.query(`SET LOCAL search_path TO ${db.schema}, public`);
        await client.query(m.sql);
        await client.query(`INSERT INTO ${db.schema}.schema_migrations (name) VALUES ($1)`, [m.name]);
        await client.query('COMMIT');
        applied.push(m.name);
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${db.schema}/${m.name} failed: ${(err as Error).message}`);
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [lockKey.toString()]).catch(() => {});
    client.release();
  }
  return applied;
}
