import type { Queryable } from '@policyhub/db';

/** Object prefixes waiting to be deleted from storage (see ObjectSweeper). */
export class ObjectDeletionRepository {
  constructor(private readonly db: Queryable) {}

  async enqueue(prefixes: string[]): Promise<void> {
    if (prefixes.length === 0) return;
    await this.db.query(
      'INSERT INTO object_deletions (prefix) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING',
      [prefixes],
    );
  }

  async pending(limit: number): Promise<string[]> {
    const { rows } = await this.db.query<{ prefix: string }>(
      'SELECT prefix FROM object_deletions ORDER BY attempts, created_at LIMIT $1',
      [limit],
    );
    return rows.map((r) => r.prefix);
  }

  async remove(prefixes: string[]): Promise<void> {
    await this.db.query('DELETE FROM object_deletions WHERE prefix = ANY($1)', [prefixes]);
  }

  async countAttempt(prefixes: string[]): Promise<void> {
    await this.db.query('UPDATE object_deletions SET attempts = attempts + 1 WHERE prefix = ANY($1)', [
      prefixes,
    ]);
  }
}
