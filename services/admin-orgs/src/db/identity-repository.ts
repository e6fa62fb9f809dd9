import { createHash } from 'node:crypto';
import type { Queryable } from '@policyhub/db';
import { escapeLike } from './tenancy-repository.js';

export interface UserRow {
  id: string;
  username: string;
  email: string;
  is_site_admin: boolean;
  created_at: string;
}

export interface TokenRow {
  id: string;
  /** The user a user token belongs to; null for team and organization tokens. */
  user_id: string | null;
  team_id: string | null;
  /** An organization token's organization (its name, read through its immutable id). */
  organization: string | null;
  /** Who created the token (for user tokens made before this was recorded: null). */
  created_by: string | null;
  description: string;
  created_at: string;
  last_used_at: string | null;
  /** From then on the token no longer authenticates; null: never expires. */
  expired_at: string | null;
}

const TOKEN_COLUMNS = `t.id, t.user_id, t.team_id,
  (SELECT o.name FROM organizations o WHERE o.external_id = t.organization_id) AS organization,
  t.created_by, t.description, t.created_at, t.last_used_at, t.expired_at`;

/** What a live bearer token stands for: a user, a team or an organization (by immutable id). */
export interface TokenSubject {
  user: UserRow | undefined;
  team_id: string | null;
  organization_id: string | null;
  token_expired_at: string | null;
}

/** A team with its organization's immutable id, when that organization is enabled. */
export interface TeamSubjectRow {
  id: string;
  name: string;
  organization: string;
  organization_id: string;
  permissions: string[];
}

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** How stale `last_used_at` may get before an authentication writes it again. */
export const LAST_USED_RESOLUTION = '1 minute';

export class IdentityRepository {
  constructor(private readonly db: Queryable) {}

  /**
   * Whom a live (unexpired) token stands for, with its expiry, noting the use in the same
   * statement: `last_used_at` is written only when it is older than LAST_USED_RESOLUTION, so a
   * token in constant use costs one write a minute, not one per request (the UPDATE matches no
   * row otherwise). An expired token stands for nobody and is not touched. A token's first use
   * (a sign-in with a new token) is recorded in the audit trail by the same statement, so the
   * record and the first `last_used_at` commit together; of concurrent first uses, the UPDATE
   * matches once (the others re-check a fresh `last_used_at` after its row lock) and so records once.
   * A team's or an organization's token is recorded in that organization's trail.
   */
  async findTokenSubject(token: string): Promise<TokenSubject | undefined> {
    const { rows } = await this.db.query<{
      team_id: string | null;
      organization_id: string | null;
      token_expired_at: string | null;
      user: UserRow | null;
    }>(
      `WITH found AS (
         SELECT id, user_id, team_id, organization_id, last_used_at, expired_at FROM authentication_tokens
          WHERE token_sha256 = $1 AND (expired_at IS NULL OR expired_at > now())
       ), touched AS (
         UPDATE authentication_tokens SET last_used_at = now()
          WHERE token_sha256 = $1 AND (expired_at IS NULL OR expired_at > now())
            AND (last_used_at IS NULL OR last_used_at < now() - interval '${LAST_USED_RESOLUTION}')
          RETURNING id
       ), first_use AS (
         INSERT INTO audit_trail (id, occurred_at, organization_id, organization, actor_type, actor_id,
                                  actor_description, resource_type, resource_id, action, outcome)
         SELECT gen_random_uuid(), date_trunc('milliseconds', now()), o.external_id, o.name, 'Client',
                coalesce(f.user_id, f.team_id, f.organization_id),
                coalesce(u.username, 'api-team_' || f.team_id, 'api-org-' || o.name, 'api-org'),
                'authentication_token', f.id, 'sign_in', 'succeeded'
           FROM found f JOIN touched t ON t.id = f.id
           LEFT JOIN users u ON u.id = f.user_id
           LEFT JOIN teams tm ON tm.id = f.team_id
           LEFT JOIN organizations o ON o.name = tm.organization OR o.external_id = f.organization_id
          WHERE f.last_used_at IS NULL
       )
       SELECT f.team_id, f.organization_id, f.expired_at AS token_expired_at,
              CASE WHEN u.id IS NULL THEN NULL ELSE to_jsonb(u) END AS user
         FROM found f LEFT JOIN users u ON u.id = f.user_id`,
      [hashToken(token)],
    );
    const row = rows[0];
    if (!row) return undefined;
    return { ...row, user: row.user ?? undefined };
  }

  /** The team with its organization's immutable id; undefined when gone or its organization is disabled. */
  async teamSubject(teamId: string): Promise<TeamSubjectRow | undefined> {
    const { rows } = await this.db.query<TeamSubjectRow>(
      `SELECT t.id, t.name, t.organization, o.external_id AS organization_id, t.permissions
         FROM teams t JOIN organizations o ON o.name = t.organization AND NOT o.is_disabled
        WHERE t.id = $1`,
      [teamId],
    );
    return rows[0];
  }

  /** The enabled organization of immutable id `externalId`. */
  async organizationSubject(externalId: string): Promise<{ name: string; external_id: string } | undefined> {
    const { rows } = await this.db.query<{ name: string; external_id: string }>(
      'SELECT name, external_id FROM organizations WHERE external_id = $1 AND NOT is_disabled',
      [externalId],
    );
    return rows[0];
  }

  /** Whether the team (`teamId`) or the organization (`organizationId`) has a live token. */
  async hasLiveToken(owner: { teamId: string } | { organizationId: string }): Promise<boolean> {
    const [column, value] =
      'teamId' in owner ? ['team_id', owner.teamId] : ['organization_id', owner.organizationId];
    const { rows } = await this.db.query(
      `SELECT 1 FROM authentication_tokens
        WHERE ${column} = $1 AND (expired_at IS NULL OR expired_at > now())`,
      [value],
    );
    return rows.length > 0;
  }

  /** Organization -> its id and permissions for every enabled organization the user is a member of. */
  async memberships(
    userId: string,
  ): Promise<
    Array<{ organization: string; organization_id: string; permissions: string[]; is_owner: boolean }>
  > {
    const { rows } = await this.db.query<{
      organization: string;
      organization_id: string;
      permissions: string[];
      is_owner: boolean;
    }>(
      `SELECT t.organization, o.external_id AS organization_id,
              coalesce(array_agg(DISTINCT p) FILTER (WHERE p IS NOT NULL), '{}') AS permissions,
              bool_or(t.name = 'owners') AS is_owner
         FROM team_members m
         JOIN teams t ON t.id = m.team_id
         JOIN organizations o ON o.name = t.organization AND NOT o.is_disabled
         LEFT JOIN LATERAL unnest(t.permissions) p ON true
        WHERE m.user_id = $1
        GROUP BY t.organization, o.external_id`,
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

  /**
   * A page of users, oldest first. `query` is a case-insensitive substring of the username or
   * email (trigram indexes, migration 0004); `isSiteAdmin` narrows to admins or non-admins.
   */
  async listUsers(
    filter: { query: string; isSiteAdmin: boolean | null },
    limit: number,
    offset: number,
  ): Promise<{ rows: UserRow[]; total: number }> {
    const where = `($1 = '' OR u.username ILIKE '%' || $1 || '%' OR u.email ILIKE '%' || $1 || '%')
       AND ($2::boolean IS NULL OR u.is_site_admin = $2)`;
    const params = [escapeLike(filter.query), filter.isSiteAdmin];
    const [page, count] = await Promise.all([
      this.db.query<UserRow>(
        `SELECT u.* FROM users u WHERE ${where} ORDER BY u.created_at, u.id LIMIT $3 OFFSET $4`,
        [...params, limit, offset],
      ),
      this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM users u WHERE ${where}`, params),
    ]);
    return { rows: page.rows, total: count.rows[0]?.n ?? 0 };
  }

  /**
   * Organizations where `userId` is the only member of the `owners` team: deleting the user would
   * leave them without an owner.
   */
  async organizationsSolelyOwnedBy(userId: string): Promise<string[]> {
    // Lock the owners teams the user is in first: a concurrent removal of the other owner (which
    // locks its team too) then either finishes before the count below or waits for this one.
    await this.db.query(
      `SELECT 1 FROM teams t JOIN team_members m ON m.team_id = t.id
        WHERE t.name = 'owners' AND m.user_id = $1 ORDER BY t.id FOR UPDATE OF t`,
      [userId],
    );
    const { rows } = await this.db.query<{ organization: string }>(
      `SELECT t.organization FROM teams t JOIN team_members m ON m.team_id = t.id
        WHERE t.name = 'owners' AND m.user_id = $1
          AND NOT EXISTS (SELECT 1 FROM team_members o WHERE o.team_id = t.id AND o.user_id <> $1)
        ORDER BY t.organization`,
      [userId],
    );
    return rows.map((r) => r.organization);
  }

  /** Deletes a user; their tokens and team memberships go with them (foreign-key cascades). */
  async deleteUser(id: string): Promise<boolean> {
    const { rowCount } = await this.db.query('DELETE FROM users WHERE id = $1', [id]);
    return (rowCount ?? 0) > 0;
  }

  async insertUser(user: Omit<UserRow, 'created_at'>): Promise<UserRow> {
    const { rows } = await this.db.query<UserRow>(
      'INSERT INTO users (id, username, email, is_site_admin) VALUES ($1, $2, $3, $4) RETURNING *',
      [user.id, user.username, user.email, user.is_site_admin],
    );
    return rows[0]!;
  }

  /** A new token of a user, a team or an organization (by immutable id): exactly one of them. */
  async insertToken(token: {
    id: string;
    owner: { userId: string } | { teamId: string } | { organizationId: string };
    secret: string;
    description: string;
    expiredAt: string | null;
    createdBy: string;
  }): Promise<TokenRow> {
    const o = token.owner;
    const { rows } = await this.db.query<TokenRow>(
      `WITH t AS (
         INSERT INTO authentication_tokens
                (id, user_id, team_id, organization_id, token_sha256, description, expired_at, created_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *)
       SELECT ${TOKEN_COLUMNS} FROM t`,
      [
        token.id,
        'userId' in o ? o.userId : null,
        'teamId' in o ? o.teamId : null,
        'organizationId' in o ? o.organizationId : null,
        hashToken(token.secret),
        token.description,
        token.expiredAt,
        token.createdBy,
      ],
    );
    return rows[0]!;
  }

  /** A user token by id (team and organization tokens are reached through their owner only). */
  async getToken(id: string): Promise<TokenRow | undefined> {
    const { rows } = await this.db.query<TokenRow>(
      `SELECT ${TOKEN_COLUMNS} FROM authentication_tokens t WHERE t.id = $1 AND t.user_id IS NOT NULL`,
      [id],
    );
    return rows[0];
  }

  /** The token of a team (`teamId`) or of an organization (`organizationId`, immutable id). */
  async getOwnedToken(owner: { teamId: string } | { organizationId: string }): Promise<TokenRow | undefined> {
    const [column, value] =
      'teamId' in owner ? ['team_id', owner.teamId] : ['organization_id', owner.organizationId];
    const { rows } = await this.db.query<TokenRow>(
      `SELECT ${TOKEN_COLUMNS} FROM authentication_tokens t WHERE t.${column} = $1`,
      [value],
    );
    return rows[0];
  }

  /** Deletes the token of a team or an organization; false when it had none. */
  async deleteOwnedToken(owner: { teamId: string } | { organizationId: string }): Promise<boolean> {
    const [column, value] =
      'teamId' in owner ? ['team_id', owner.teamId] : ['organization_id', owner.organizationId];
    const { rowCount } = await this.db.query(`DELETE FROM authentication_tokens WHERE ${column} = $1`, [
      value,
    ]);
    return (rowCount ?? 0) > 0;
  }

  /**
   * Locks the team's (or organization's) row for the rest of the transaction, so that two
   * concurrent regenerations of its token replace one another instead of colliding.
   */
  async lockTokenOwner(owner: { teamId: string } | { organizationId: string }): Promise<boolean> {
    const { rows } =
      'teamId' in owner
        ? await this.db.query('SELECT 1 FROM teams WHERE id = $1 FOR UPDATE', [owner.teamId])
        : await this.db.query('SELECT 1 FROM organizations WHERE external_id = $1 FOR UPDATE', [
            owner.organizationId,
          ]);
    return rows.length > 0;
  }

  /** A page of a user's tokens, oldest first, without their hashes. */
  async listTokens(
    userId: string,
    limit: number,
    offset: number,
  ): Promise<{ rows: TokenRow[]; total: number }> {
    const [page, count] = await Promise.all([
      this.db.query<TokenRow>(
        `SELECT ${TOKEN_COLUMNS} FROM authentication_tokens t WHERE t.user_id = $1
          ORDER BY t.created_at, t.id LIMIT $2 OFFSET $3`,
        [userId, limit, offset],
      ),
      this.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM authentication_tokens WHERE user_id = $1',
        [userId],
      ),
    ]);
    return { rows: page.rows, total: count.rows[0]?.n ?? 0 };
  }

  /** Deletes a token; false when it did not exist (any more). */
  async deleteToken(id: string): Promise<boolean> {
    const { rowCount } = await this.db.query('DELETE FROM authentication_tokens WHERE id = $1', [id]);
    return (rowCount ?? 0) > 0;
  }

  /**
   * Makes the bootstrap site admin `admin` exist with exactly `token` as its bootstrap token:
   * every other bootstrap token (a previous SITE_ADMIN_TOKEN) is deleted, so rotating the setting
   * revokes the old value, and leaving it unset revokes them all. Tokens the admin created
   * through the API are not bootstrap tokens and stay.
   */
  async ensureSiteAdmin(userId: string, tokenId: string, token: string | undefined): Promise<void> {
    const hash = token === undefined ? null : hashToken(token);
    await this.db.query(
      `DELETE FROM authentication_tokens WHERE is_bootstrap AND token_sha256 IS DISTINCT FROM $1`,
      [hash],
    );
    if (hash === null) return;
    await this.db.query(
      `INSERT INTO users (id, username, email, is_site_admin) VALUES ($1, 'admin', 'admin@localhost', true)
       ON CONFLICT (username) DO UPDATE SET is_site_admin = true`,
      [userId],
    );
    await this.db.query(
      `INSERT INTO authentication_tokens (id, user_id, token_sha256, description, is_bootstrap)
       SELECT $1, id, $2, 'bootstrap site-admin token', true FROM users WHERE username = 'admin'
       ON CONFLICT (token_sha256) DO NOTHING`,
      [tokenId, hash],
    );
  }
}
