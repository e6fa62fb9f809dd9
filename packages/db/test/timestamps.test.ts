import { createTestDatabase, type TestDatabase } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Db, parseTextArray, timestamptzToIso } from '../src/db.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase('ph_db_timestamps');
});
afterAll(async () => {
  await database?.drop();
});

describe('timestamptz values', () => {
  it('come back as ISO strings with a Z and milliseconds, the fraction truncated as Date would', async () => {
    const db = new Db({ url: database.url, schema: 'public' });
    try {
      const literals = [
        '2026-11-24 10:05:32+00',
        '2026-11-24 10:05:32.4+00',
        '2026-11-24 10:05:32.41+00',
        '2026-11-24 10:05:32.413+00',
        '2026-11-24 10:05:32.413456+00',
        '2026-12-31 23:59:59.999999+00',
        '1999-01-01 00:00:00.000001+00',
        '2026-06-01 12:00:00.5+02',
      ];
      const { rows } = await db.query<{ at: string; text: string }>(
        `SELECT v::timestamptz AS at, v::timestamptz::text AS text FROM unnest($1::text[]) WITH ORDINALITY u(v, i) ORDER BY i`,
        [literals],
      );
      expect(rows.map((r) => r.at)).toEqual([
        '2026-11-24T10:05:32.000Z',
        '2026-11-24T10:05:32.400Z',
        '2026-11-24T10:05:32.410Z',
        '2026-11-24T10:05:32.413Z',
        '2026-11-24T10:05:32.413Z',
        '2026-12-31T23:59:59.999Z',
        '1999-01-01T00:00:00.000Z',
        '2026-06-01T10:00:00.500Z',
      ]);
      // Whatever form the server sends, the answer is the one Date gives.
      for (const r of rows) expect(timestamptzToIso(r.text)).toBe(new Date(r.text).toISOString());
    } finally {
      await db.close();
    }
  });

  it('outside the UTC form (another session time zone) are read through Date', () => {
    expect(timestamptzToIso('2026-06-01 12:00:00.5+02')).toBe('2026-06-01T10:00:00.500Z');
    expect(timestamptzToIso('2026-06-01 12:00:00+05:30')).toBe('2026-06-01T06:30:00.000Z');
    expect(() => timestamptzToIso('infinity')).toThrow(RangeError);
  });
});

describe('text arrays', () => {
  it('read as pg reads them, quoted, escaped, empty and NULL elements included', async () => {
    const db = new Db({ url: database.url, schema: 'public' });
    try {
      const arrays = [
        [],
        ['ws-abc', 'ws-def'],
        ['one'],
        ['a b', 'c,d', 'e"f', 'g\\h', '{i}', ''],
        ['x', null, 'NULL', 'null', 'nul'],
        ['  padded ', 'tab\there', 'é-ü'],
      ];
      for (const array of arrays) {
        const { rows } = await db.query<{ a: unknown; text: string }>(
          'SELECT $1::text[] AS a, $1::text[]::text AS text',
          [array],
        );
        expect(rows[0]!.a).toEqual(array);
        expect(parseTextArray(rows[0]!.text)).toEqual(array);
      }
      const nested = await db.query<{ a: unknown }>(`SELECT '{{a,b},{c,d}}'::text[] AS a`);
      expect(nested.rows[0]!.a).toEqual([
        ['a', 'b'],
        ['c', 'd'],
      ]);
      const bounded = await db.query<{ a: unknown }>(`SELECT '[0:1]={a,b}'::text[] AS a`);
      expect(bounded.rows[0]!.a).toEqual(['a', 'b']);
    } finally {
      await db.close();
    }
  });
});
