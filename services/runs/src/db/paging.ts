import type { Queryable } from '@policyhub/db';

/**
 * One page and the total in one statement: `pageSql` must select `count(*) OVER () AS total`.
 * Only a page past the end (no rows, so no window count) costs the extra `countSql`.
 */
export async function pageWithTotal<R extends object>(
  db: Queryable,
  pageSql: string,
  params: unknown[],
  countSql: string,
  countParams: unknown[],
): Promise<{ rows: R[]; total: number }> {
  const { rows } = await db.query<R & { total: number }>(pageSql, params);
  if (rows.length > 0)
    return { rows: rows.map(({ total: _total, ...row }) => row as unknown as R), total: rows[0]!.total };
  const count = await db.query<{ n: number }>(countSql, countParams);
  return { rows: [], total: count.rows[0]?.n ?? 0 };
}
