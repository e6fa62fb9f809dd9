import type { Queryable } from '@policyhub/db';
import type { ArchiveLayout } from '../domain/archive-layouts.js';
import type { UploadSession } from '../domain/upload-sessions.js';

interface SessionRow {
  id: string;
  organization: string;
  organization_id: string | null;
  owner_kind: string;
  owner_id: string;
  owner_parent_id: string;
  object_key: string;
  layout: ArchiveLayout;
  layout_root: string;
  created_by: string | null;
  required_permission: string;
  expires_at: string;
  used_at: string | null;
  expired_at: string | null;
  claimed_until: string | null;
}

const toSession = (r: SessionRow): UploadSession => ({
  id: r.id,
  organization: r.organization,
  organizationId: r.organization_id ?? '',
  ownerKind: r.owner_kind,
  ownerId: r.owner_id,
  ownerParentId: r.owner_parent_id,
  objectKey: r.object_key,
  layout: r.layout,
  layoutRoot: r.layout_root,
  createdBy: r.created_by ?? '',
  requiredPermission: r.required_permission,
  expiresAt: r.expires_at,
  usedAt: r.used_at,
  expiredAt: r.expired_at,
  claimedUntil: r.claimed_until,
});

const COLUMNS =
  'id, organization, organization_id, owner_kind, owner_id, owner_parent_id, object_key, layout, layout_root, created_by, required_permission, expires_at, used_at, expired_at, claimed_until';

/** How an upload URL names its session: by id (sealed tokens) or by the SHA-256 of a legacy token. */
export type SessionRef = { id: string } | { tokenSha256: string };

const refCondition = (ref: SessionRef): [string, string] =>
  'id' in ref ? ['id = $1', ref.id] : ['token_sha256 = $1', ref.tokenSha256];

export class SessionRepository {
  constructor(private readonly db: Queryable) {}

  /** Sessions are found by id (a sealed token names it); no token or hash of one is stored. */
  async insert(s: Omit<UploadSession, 'usedAt' | 'expiredAt' | 'claimedUntil'>): Promise<void> {
    await this.db.query(
      `INSERT INTO upload_sessions (id, organization, owner_kind, owner_id, owner_parent_id, object_key,
                                    layout, layout_root, expires_at, organization_id, created_by, required_permission)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        s.id,
        s.organization,
        s.ownerKind,
        s.ownerId,
        s.ownerParentId,
        s.objectKey,
        s.layout,
        s.layoutRoot,
        s.expiresAt,
        s.organizationId || null,
        s.createdBy || null,
        s.requiredPermission,
      ],
    );
  }

  /** The session a sealed token names (`{ id }`), or one opened before them (`{ tokenSha256 }`). */
  async find(ref: SessionRef): Promise<UploadSession | undefined> {
    const [where, value] = refCondition(ref);
    const { rows } = await this.db.query<SessionRow>(
      `SELECT ${COLUMNS} FROM upload_sessions WHERE ${where}`,
      [value],
    );
    return rows[0] && toSession(rows[0]);
  }

  /**
   * Atomically reserves a usable session for one upload attempt (unused, unexpired, not held by
   * another attempt whose lease is still valid) for `leaseMs`; the attempt renews the lease while
   * it runs. Undefined when it cannot be claimed right now.
   */
  async claim(ref: SessionRef, attemptId: string, leaseMs: number): Promise<UploadSession | undefined> {
    const [where, value] = refCondition(ref);
    const { rows } = await this.db.query<SessionRow>(
      `UPDATE upload_sessions
          SET claimed_by = $2, claimed_until = now() + make_interval(secs => $3::double precision / 1000)
        WHERE ${where} AND used_at IS NULL AND expired_at IS NULL AND expires_at > now()
          AND (claimed_until IS NULL OR claimed_until <= now())
        RETURNING ${COLUMNS}`,
      [value, attemptId, leaseMs],
    );
    return rows[0] && toSession(rows[0]);
  }

  /**
   * Extends the attempt's lease by `leaseMs` from now; false when the attempt no longer holds the
   * session (its lease lapsed and another attempt or the sweeper took it, or it was revoked).
   */
  async renew(sessionId: string, attemptId: string, leaseMs: number): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `UPDATE upload_sessions
          SET claimed_until = now() + make_interval(secs => $3::double precision / 1000)
        WHERE id = $1 AND claimed_by = $2 AND used_at IS NULL AND expired_at IS NULL`,
      [sessionId, attemptId, leaseMs],
    );
    return rowCount === 1;
  }

  /**
   * Settles up to `limit` sessions whose URL expired without an upload and that no upload holds
   * (no claim, or its lease lapsed: the process died): they are marked expired and returned.
   * Rows another replica is settling right now are skipped, never waited for.
   */
  async expireDue(limit: number): Promise<UploadSession[]> {
    const { rows } = await this.db.query<SessionRow>(
      `UPDATE upload_sessions s SET expired_at = now(), claimed_by = NULL, claimed_until = NULL
         FROM (SELECT id FROM upload_sessions
                WHERE used_at IS NULL AND expired_at IS NULL AND expires_at <= now()
                  AND (claimed_until IS NULL OR claimed_until <= now())
                ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED) due
        WHERE s.id = due.id
        RETURNING ${COLUMNS.split(', ')
          .map((c) => `s.${c}`)
          .join(', ')}`,
      [limit],
    );
    return rows.map(toSession);
  }

  /** Gives the session back after an attempt that did not consume it (cancelled, failed to store). */
  async release(sessionId: string, attemptId: string): Promise<void> {
    await this.db.query(
      'UPDATE upload_sessions SET claimed_by = NULL, claimed_until = NULL WHERE id = $1 AND claimed_by = $2',
      [sessionId, attemptId],
    );
  }

  /** Whether the session has been used (by any attempt); false also when it no longer exists. */
  async isUsed(sessionId: string): Promise<boolean> {
    const { rows } = await this.db.query<{ used: boolean }>(
      'SELECT used_at IS NOT NULL AS used FROM upload_sessions WHERE id = $1',
      [sessionId],
    );
    return rows[0]?.used ?? false;
  }

  /** Marks the session used by this attempt; false when the attempt no longer holds it. */
  async markUsed(sessionId: string, attemptId: string): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `UPDATE upload_sessions SET used_at = now(), claimed_by = NULL, claimed_until = NULL
        WHERE id = $1 AND claimed_by = $2 AND used_at IS NULL AND expired_at IS NULL`,
      [sessionId, attemptId],
    );
    return rowCount === 1;
  }

  /**
   * Revokes the sessions of a deleted organization: those opened with its id, and those from
   * before ids existed that carry its name.
   */
  async deleteForOrganization(organization: { name: string; id: string | null }): Promise<number> {
    const { rowCount } = await this.db.query(
      `DELETE FROM upload_sessions
        WHERE organization_id = $1 OR (organization_id IS NULL AND organization = $2)`,
      [organization.id, organization.name],
    );
    return rowCount ?? 0;
  }

  /** Revokes every session of an organization, or of one parent (e.g. a policy set) in it. */
  async deleteFor(organization: string, ownerParentId?: string): Promise<number> {
    const { rowCount } = ownerParentId
      ? await this.db.query('DELETE FROM upload_sessions WHERE organization = $1 AND owner_parent_id = $2', [
          organization,
          ownerParentId,
        ])
      : await this.db.query('DELETE FROM upload_sessions WHERE organization = $1', [organization]);
    return rowCount ?? 0;
  }
}
