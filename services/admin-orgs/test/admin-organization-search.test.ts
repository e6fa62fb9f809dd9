import { fileURLToPath } from 'node:url';
import { Db, type Queryable, readMigrationsDir, runMigrations } from '@policyhub/db';
import { eventMigrations } from '@policyhub/events';
import { createTestDatabase, type TestDatabase } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AdminOrganizationRepository,
  type OrganizationSearch,
} from '../src/db/admin-organization-repository.js';
import { ADMIN_ORGS_SCHEMA } from '../src/service.js';

const ORGANIZATIONS = 5_000;

/** Passes queries through and remembers them, so the test can EXPLAIN exactly what ran. */
class RecordingDb implements Queryable {
  readonly seen: Array<{ text: string; values: unknown[] }> = [];
  constructor(private readonly db: Db) {}
  query: Queryable['query'] = (text, values = []) => {
    this.seen.push({ text, values });
    return this.db.query(text, values);
  };
}

/** Every index a plan reads, from EXPLAIN (FORMAT JSON). */
function indexesIn(plan: unknown): string[] {
  if (Array.isArray(plan)) return plan.flatMap(indexesIn);
  if (typeof plan !== 'object' || plan === null) return [];
  const node = plan as Record<string, unknown>;
  const own = typeof node['Index Name'] === 'string' ? [node['Index Name'] as string] : [];
  return [...own, ...Object.values(node).flatMap(indexesIn)];
}

describe('admin organization search', () => {
  let database: TestDatabase;
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase('ph_admin_search');
    db = new Db({ url: database.url, schema: ADMIN_ORGS_SCHEMA });
    const dir = fileURLToPath(new URL('../migrations', import.meta.url));
    await runMigrations(db, [...eventMigrations, ...readMigrationsDir(dir)]);
    await db.query(
      `INSERT INTO organizations (name, external_id, email, created_at)
       SELECT 'org-' || i || '-' || substr(md5(i::text), 1, 10), 'org-ext-' || i,
              'team' || i || '@example-' || (i % 50) || '.com', now() - (i || ' seconds')::interval
         FROM generate_series(1, ${ORGANIZATIONS}) AS i`,
    );
    await db.query('ANALYZE organizations');
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  /**
   * Runs a search and returns the indexes the plans of its queries use. Sequential and plain
   * index scans are switched off so that, whatever the table size, the plan shows which index can
   * evaluate the search condition (a small table would otherwise just be scanned; with many
   * organizations the planner picks the trigram indexes on its own, checked by hand at 100k rows).
   */
  async function plannedIndexes(search: OrganizationSearch): Promise<string[]> {
    const recording = new RecordingDb(db);
    const repo = new AdminOrganizationRepository(recording);
    await repo.search(search, 20, 0);
    await repo.countMatching(search);
    return db.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_seqscan = off');
      await tx.query('SET LOCAL enable_indexscan = off');
      const indexes: string[] = [];
      for (const { text, values } of recording.seen) {
        const { rows } = await tx.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${text}`, values);
        indexes.push(...indexesIn(rows[0]?.['QUERY PLAN']));
      }
      return indexes;
    });
  }

  const search = (over: Partial<OrganizationSearch>): OrganizationSearch => ({
    query: '',
    name: '',
    email: '',
    ...over,
  });

  it('has trigram GIN indexes on organization name and email', async () => {
    const { rows } = await db.query<{ indexname: string; indexdef: string }>(
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = 'organizations'`,
      [ADMIN_ORGS_SCHEMA],
    );
    const defs = Object.fromEntries(rows.map((r) => [r.indexname, r.indexdef]));
    expect(defs.organizations_name_trgm).toMatch(/USING gin \(name (public\.)?gin_trgm_ops\)/);
    expect(defs.organizations_email_trgm).toMatch(/USING gin \(email (public\.)?gin_trgm_ops\)/);
  });

  /** The random-looking part of organization i's name. */
  const nameHash = async (i: number) =>
    (await db.query<{ s: string }>('SELECT substr(md5($1::text), 1, 10) AS s', [i])).rows[0]!.s;

  it('q (name or email) is planned on both trigram indexes', async () => {
    const indexes = await plannedIndexes(search({ query: (await nameHash(4242)).toUpperCase() }));
    expect(indexes).toContain('organizations_name_trgm');
    expect(indexes).toContain('organizations_email_trgm');
  });

  it('q[name] and q[email] are planned on their trigram index', async () => {
    expect(await plannedIndexes(search({ name: await nameHash(777) }))).toContain('organizations_name_trgm');
    expect(await plannedIndexes(search({ email: 'team4242@' }))).toContain('organizations_email_trgm');
  });

  it('finds case-insensitive substrings and counts the matches', async () => {
    const repo = new AdminOrganizationRepository(db);
    const both = search({ name: 'ORG-4242-', email: 'TEAM4242@' });
    const rows = await repo.search(both, 20, 0);
    expect(rows.map((r) => r.name)).toEqual([expect.stringMatching(/^org-4242-/)]);
    expect(await repo.countMatching(both)).toEqual({ total: 1, disabled: 0 });
    expect(await repo.countMatching(search({ query: '%' }))).toEqual({ total: 0, disabled: 0 });
  });

  it('answers a page, an empty page and a page past the end with their counts in one statement', async () => {
    const page = async (q: string, offset: number) => {
      const recording = new RecordingDb(db);
      const result = await new AdminOrganizationRepository(recording).searchWithCounts(
        search({ query: q }),
        20,
        offset,
      );
      return { ...result, names: result.rows.map((r) => r.name), statements: recording.seen.length };
    };
    const hit = await page('ORG-4242-', 0);
    expect(hit).toMatchObject({ total: 1, disabled: 0, statements: 1 });
    expect(hit.names).toEqual([expect.stringMatching(/^org-4242-/)]);
    expect(hit.rows[0]).not.toHaveProperty('match_total');
    expect(await page('no-such-organization', 0)).toMatchObject({ names: [], total: 0, statements: 1 });
    expect(await page('ORG-4242-', 20)).toMatchObject({ names: [], total: 1, statements: 1 });
    const many = await page('team1', 0);
    expect(many.names).toHaveLength(20);
    expect(many.total).toBeGreaterThan(20);
  });
});
