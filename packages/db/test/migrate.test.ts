import { createTestDatabase, type TestDatabase } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Db } from '../src/db.js';
import { EditedMigrationError, runMigrations } from '../src/migrate.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase('ph_db_migrate');
});
afterAll(async () => {
  await database?.drop();
});

const first = { name: '0001_create_widgets', sql: 'CREATE TABLE widgets (id text PRIMARY KEY);' };
const second = { name: '0002_add_widget_colour', sql: 'ALTER TABLE widgets\n  ADD COLUMN colour text;\n' };

describe('migrations', () => {
  it('applies each migration once and records its checksum', async () => {
    const db = new Db({ url: database.url, schema: 'mig_once' });
    try {
      expect(await runMigrations(db, [first])).toEqual(['0001_create_widgets']);
      expect(await runMigrations(db, [first, second])).toEqual(['0002_add_widget_colour']);
      expect(await runMigrations(db, [first, second])).toEqual([]);
      const { rows } = await db.query<{ name: string; checksum: string }>(
        'SELECT name, checksum FROM mig_once.schema_migrations ORDER BY name',
      );
      expect(rows.map((r) => r.name)).toEqual(['0001_create_widgets', '0002_add_widget_colour']);
      for (const r of rows) expect(r.checksum).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      await db.close();
    }
  });

  it('refuses to start when an applied migration was edited, instead of skipping it silently', async () => {
    const db = new Db({ url: database.url, schema: 'mig_edited' });
    try {
      await runMigrations(db, [first, second]);
      const edited = { ...second, sql: 'ALTER TABLE widgets\n  ADD COLUMN color text;\n' };
      const attempt = runMigrations(db, [first, edited]);
      await expect(attempt).rejects.toBeInstanceOf(EditedMigrationError);
      await expect(attempt).rejects.toThrow(/0002_add_widget_colour changed after being applied/);
      // The same file checked out with Windows line endings is not an edit.
      const crlf = { ...second, sql: second.sql.replace(/\n/g, '\r\n') };
      expect(await runMigrations(db, [first, crlf])).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('adopts the current checksum for migrations applied before checksums were kept', async () => {
    const db = new Db({ url: database.url, schema: 'mig_legacy' });
    try {
      await runMigrations(db, [first]);
      await db.query('UPDATE mig_legacy.schema_migrations SET checksum = NULL');
      expect(await runMigrations(db, [first])).toEqual([]);
      const { rows } = await db.query<{ checksum: string | null }>(
        'SELECT checksum FROM mig_legacy.schema_migrations',
      );
      expect(rows[0]?.checksum).toMatch(/^[0-9a-f]{64}$/);
      await expect(
        runMigrations(db, [{ ...first, sql: 'CREATE TABLE other (id int);' }]),
      ).rejects.toBeInstanceOf(EditedMigrationError);
    } finally {
      await db.close();
    }
  });
});
