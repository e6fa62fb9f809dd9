import { createTestDatabase, type TestDatabase } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Db } from '../src/db.js';
import { isConnectionError } from '../src/pg-errors.js';

let database: TestDatabase;
let db: Db;
beforeAll(async () => {
  database = await createTestDatabase('ph_db_queries');
  db = new Db({ url: database.url, schema: 'public', max: 1 });
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
});

describe('prepared statements', () => {
  it('answer as the same query unprepared, and each connection prepares the text once', async () => {
    const text = 'SELECT $1::int + 1 AS n, ARRAY(SELECT g FROM generate_series(1, $1::int) g) AS upto';
    const plain = await db.query(text, [3]);
    const prepared = await db.query(text, [3], { prepare: true });
    expect(prepared.rows).toEqual(plain.rows);
    expect(prepared.rows).toEqual([{ n: 4, upto: [1, 2, 3] }]);
    expect((await db.query(text, [1], { prepare: true })).rows).toEqual([{ n: 2, upto: [1] }]);
    // One connection (max 1): the statement is prepared on it once, under a name from its text.
    const { rows } = await db.query<{ name: string }>(
      'SELECT name FROM pg_prepared_statements WHERE statement = $1',
      [text],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.name).toMatch(/^ph_/);
  });

  it('inside a transaction too', async () => {
    const text = 'SELECT $1::text AS v';
    const v = await db.transaction(async (tx) => (await tx.query(text, ['x'], { prepare: true })).rows[0]);
    expect(v).toEqual({ v: 'x' });
  });
});

describe('transaction settings', () => {
  it('SET LOCAL statements hold inside the transaction only', async () => {
    const inside = await db.transaction(
      async (tx) =>
        (await tx.query<{ s: string }>('SELECT current_setting($1) AS s', ['enable_seqscan'])).rows[0]!.s,
      { setLocal: 'SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = off' },
    );
    expect(inside).toBe('off');
    const after = await db.query<{ s: string }>('SELECT current_setting($1) AS s', ['enable_seqscan']);
    expect(after.rows[0]!.s).toBe('on');
  });

  it('refuses anything but SET LOCAL statements', async () => {
    await expect(
      db.transaction(async () => 1, { setLocal: 'SET LOCAL a = b; DROP TABLE x' }),
    ).rejects.toThrow(/not a list of SET LOCAL statements/);
  });
});

describe('statement timeout', () => {
  it('cancels a statement that runs too long, as a "database unavailable" error, in and out of transactions', async () => {
    const quick = new Db({ url: database.url, schema: 'public', max: 1, statementTimeoutMs: 200 });
    try {
      const outside = await quick.query('SELECT pg_sleep(3)').catch((err: unknown) => err);
      expect(outside).toMatchObject({ code: '57014' });
      expect(isConnectionError(outside)).toBe(true);
      const inside = await quick
        .transaction((tx) => tx.query('SELECT pg_sleep(3)'))
        .catch((err: unknown) => err);
      expect(isConnectionError(inside)).toBe(true);
      // The connection is fine afterwards.
      expect((await quick.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await quick.close();
    }
  });

  it('does not apply to migrations, which may wait for another replica', async () => {
    const quick = new Db({ url: database.url, schema: 'public', max: 1, statementTimeoutMs: 200 });
    const client = await quick.connectWithoutTimeouts();
    try {
      expect((await client.query('SELECT pg_sleep(0.5), 1 AS done')).rows[0]).toMatchObject({ done: 1 });
    } finally {
      await client.end();
      await quick.close();
    }
  });
});
