import { createHash } from 'node:crypto';
import type { Queryable } from '@policyhub/db';

export interface UserRow {
  id: string;
  username: string;
  email: string;
  is_site_admin: boolean;
  created_at: string;
}

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export class IdentityRepository {
  constructor(private readonly db: Queryable) {}

  async findUserByToken(token: string): Promise<UserRow | undefined> {
    const { rows } = await this.db.query<UserRow>(
      `SELECT u.* FROM authentication_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_sha256 = $1`,
      [hashToken(token)],
    );
    return rows[0];
  }

  /** Organization -> permissions for every enabled organization the user is a member of. */
  async memberships(
    userId: string,
  ): Promise<Array<{ organization: string; permissions: string[]; is_owner: boolean }>> {
    const { rows } = await this.db.query<{ organization: string; permissions: string[]; is_owner: boolean }>(
      `SELECT t.organization,
              coalesce(array_agg(DISTINCT p) FILTER (WHERE p IS NOT NULL), '{}') AS permissions,
              bool_or(t.name = 'owners') AS is_owner
         FROM team_members m
         JOIN teams t ON t.id = m.team_id
         JOIN organizations o ON o.name = t.organization AND NOT o.is_disabled
         LEFT JOIN LATERAL unnest(t.permissions) p ON true
        WHERE m.user_id = $1
        GROUP BY t.organization`,
      [userId],
    );
    return rows;
  }

  async getUser(id: string): Promise<UserRow | undefined> {
    const { rows } = await this.db.query<UserRow>('SELECT * FROM users WHERE id = $1', [id]);
    return rows[0];
  }

  async getUsers(ids: string[]): Promise<UserRow[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.db.query<UserRow>('SELECT * FROM users WHERE id = ANY($1) ORDER BY id', [
      ids,
    ]);
    return rows;
  }

  async insertUser(user: Omit<UserRow, 'created_at'>): Promise<UserRow> {
    const { rows } = await this.db.query<UserRow>(
      'INSERT INTO users (id, username, email, is_site_admin) VALUES ($1, $2, $3, $4) RETURNING *',
      [user.id, user.username, user.email, user.is_site_admin],
    );
    return rows[0]!;
  }

  async insertToken(id: string, userId: string, token: string, description: string) {
    const { rows } = await this.db.query<{
      id: string;
      user_id: string;
      description: string;
      created_at: string;
    }>(
      `INSERT INTO authentication_tokens (id, user_id, token_sha256, description) VALUES ($1, $2, $3, $4)
       RETURNING id, user_id, description, created_at`,
      [id, userId, hashToken(token), description],
    );
    return rows[0]!;
  }

  /** Makes sure the bootstrap site admin `admin` exists and `token` authenticates as it. */
  async ensureSiteAdmin(userId: string, tokenId: string, token: string): Promise<void> {
    await this.db.query(
      `INSERT INTO users (id, username, email, is_site_admin) VALUES ($1, 'admin', 'admin@localhost', true)
       ON CONFLICT (username) DO UPDATE SET is_site_admin = true`,
      [userId],
    );
    await this.db.query(
      `INSERT INTO authentication_tokens (id, user_id, token_sha256, description)
       SELECT $1, id, $2, 'bootstrap site-admin token' FROM users WHERE username = 'admin'
       ON CONFLICT (token_sha256) DO NOTHING`,
      [tokenId, hashToken(token)],
    );
  }
}
