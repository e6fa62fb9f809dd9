import type { Queryable } from '@policyhub/db';
import type { Settlement, VersionDeclaration, VersionRole, VersionStatus } from '../domain/versions.js';
import type { Kind } from '../domain/vocabulary.js';

export interface VersionRow {
  id: string;
  policy_set_id: string;
  organization: string;
  organization_id: string | null;
  source: string;
  status: VersionStatus;
  pending_at: string;
  ready_at: string | null;
  errored_at: string | null;
  error: string | null;
  error_message: string | null;
  /** Storage's upload session of a pending version (no secret: the URL is minted from it, ADR 0059). */
  upload_session_id: string | null;
  upload_expires_at: string;
  object_key: string | null;
  sha256: string | null;
  created_by: string | null;
  auto_promote: boolean;
  promoted_at: string | null;
  /** What the archive declares, recorded at upload (null: not recorded). */
  declaration: VersionDeclaration | null;
  /** Computed from the set's current version (domain/versions.ts `VersionRole`); null unless ready. */
  role: VersionRole | null;
  created_at: string;
  updated_at: string;
}

/** What creating a version needs to know about its set. */
export interface SetForVersions {
  id: string;
  organization: string;
  organization_id: string | null;
  kind: Kind;
  policies_path: string | null;
  has_vcs_repo: boolean;
  has_policies: boolean;
}

/** A version's columns and its role; read `FROM ${FROM}` (the version `v` joined to its set `ps`). */
const COLUMNS = `v.id, v.policy_set_id, v.organization, v.organization_id, v.source, v.status, v.pending_at, v.ready_at,
  v.errored_at, v.error, v.error_message, v.upload_session_id, v.upload_expires_at, v.object_key, v.sha256, v.created_by,
  v.auto_promote, v.promoted_at, v.declaration, v.created_at, v.updated_at,
  CASE WHEN v.status <> 'ready' THEN NULL
       WHEN ps.current_version_id = v.id THEN 'current'
       WHEN v.promoted_at IS NOT NULL THEN 'superseded'
       ELSE 'staged' END AS role`;
const FROM = 'policy_set_versions v JOIN policy_sets ps ON ps.id = v.policy_set_id';

export class VersionRepository {
  constructor(private readonly db: Queryable) {}

  /** The set's facts; `forUpdate` locks its row so they cannot change until the transaction ends. */
  async getSet(id: string, options: { forUpdate?: boolean } = {}): Promise<SetForVersions | undefined> {
    const { rows } = await this.db.query<SetForVersions>(
      `SELECT ps.id, ps.organization, ps.organization_id, ps.kind, ps.policies_path, ps.vcs_repo IS NOT NULL AS has_vcs_repo,
              EXISTS (SELECT 1 FROM policy_set_policies p WHERE p.policy_set_id = ps.id) AS has_policies
         FROM policy_sets ps WHERE ps.id = $1 ${options.forUpdate ? 'FOR UPDATE OF ps' : ''}`,
      [id],
    );
    return rows[0];
  }

  async insert(v: {
    id: string;
    policySetId: string;
    organization: string;
    organizationId: string | null;
    source: string;
    uploadSessionId: string;
    uploadExpiresAt: string;
    createdAt: string;
    createdBy: string | null;
    autoPromote: boolean;
  }): Promise<VersionRow> {
    await this.db.query(
      `INSERT INTO policy_set_versions
         (id, policy_set_id, organization, organization_id, source, status, pending_at, upload_session_id, upload_expires_at,
          created_at, updated_at, created_by, auto_promote)
       VALUES ($1, $2, $3, $8, $4, 'pending', $7, $5, $6, $7, $7, $9, $10)`,
      [
        v.id,
        v.policySetId,
        v.organization,
        v.source,
        v.uploadSessionId,
        v.uploadExpiresAt,
        v.createdAt,
        v.organizationId,
        v.createdBy,
        v.autoPromote,
      ],
    );
    return (await this.get(v.id))!;
  }

  /**
   * Records a new version on its set: the set becomes versioned, and the version becomes the
   * newest unless a version created later is already recorded (concurrent creates).
   */
  async recordNewest(policySetId: string, versionId: string): Promise<void> {
    await this.db.query(
      `UPDATE policy_sets ps SET versioned = true,
              newest_version_id = CASE
                WHEN ps.newest_version_id IS NULL OR NOT EXISTS (
                  SELECT 1 FROM policy_set_versions n, policy_set_versions v
                   WHERE n.id = ps.newest_version_id AND v.id = $2
                     AND (n.created_at, n.id) > (v.created_at, v.id))
                THEN $2 ELSE ps.newest_version_id END
        WHERE ps.id = $1`,
      [policySetId, versionId],
    );
  }

  async get(id: string, options: { forUpdate?: boolean } = {}): Promise<VersionRow | undefined> {
    const { rows } = await this.db.query<VersionRow>(
      `SELECT ${COLUMNS} FROM ${FROM} WHERE v.id = $1 ${options.forUpdate ? 'FOR UPDATE OF v' : ''}`,
      [id],
    );
    return rows[0];
  }

  async getMany(ids: string[]): Promise<VersionRow[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.db.query<VersionRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE v.id = ANY($1)`, [
      ids,
    ]);
    return rows;
  }

  /**
   * A page of a set's versions, newest first, and the total count (one statement). `statuses`,
   * when not empty, keeps only versions in any of them.
   */
  async list(
    policySetId: string,
    limit: number,
    offset: number,
    statuses: readonly VersionStatus[] = [],
  ): Promise<{ rows: VersionRow[]; total: number }> {
    const byStatus = statuses.length > 0 ? [...statuses] : null;
    const { rows } = await this.db.query<VersionRow & { total: number }>(
      `SELECT ${COLUMNS}, count(*) OVER () AS total FROM ${FROM}
        WHERE v.policy_set_id = $1 AND ($4::text[] IS NULL OR v.status = ANY($4))
        ORDER BY v.created_at DESC, v.id DESC LIMIT $2 OFFSET $3`,
      [policySetId, limit, offset, byStatus],
    );
    if (rows.length > 0) return { rows, total: rows[0]!.total };
    // Past the last page the window is empty; the total still has to be right.
    const { rows: counted } = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM policy_set_versions
        WHERE policy_set_id = $1 AND ($2::text[] IS NULL OR status = ANY($2))`,
      [policySetId, byStatus],
    );
    return { rows: [], total: counted[0]?.n ?? 0 };
  }

  /** The set's current version id (null: none yet). */
  async currentVersionId(policySetId: string): Promise<string | null> {
    const { rows } = await this.db.query<{ current_version_id: string | null }>(
      'SELECT current_version_id FROM policy_sets WHERE id = $1',
      [policySetId],
    );
    return rows[0]?.current_version_id ?? null;
  }

  /** Makes the (ready) version its set's current version, now. */
  async promote(id: string, policySetId: string): Promise<void> {
    await this.db.query(
      `WITH promoted AS (
         UPDATE policy_set_versions SET promoted_at = now(), updated_at = now() WHERE id = $1 RETURNING id)
       UPDATE policy_sets SET current_version_id = promoted.id FROM promoted WHERE policy_sets.id = $2`,
      [id, policySetId],
    );
  }

  /**
   * Moves a pending version to ready or errored; the upload URL is forgotten either way. A version
   * that becomes ready with `auto_promote` also becomes its set's current version, in the same
   * statement; one without it stays staged until promoted (`promote`).
   */
  async settle(id: string, s: Settlement): Promise<void> {
    if (s.status === 'ready') {
      await this.db.query(
        `WITH settled AS (
           UPDATE policy_set_versions SET status = 'ready', ready_at = now(), object_key = $2, size_bytes = $3,
                  sha256 = $4, declaration = $5, upload_session_id = NULL, updated_at = now(),
                  promoted_at = CASE WHEN auto_promote THEN now() ELSE promoted_at END
            WHERE id = $1
            RETURNING id, policy_set_id, auto_promote)
         UPDATE policy_sets SET current_version_id = settled.id FROM settled
          WHERE policy_sets.id = settled.policy_set_id AND settled.auto_promote`,
        [id, s.objectKey, s.sizeBytes, s.sha256, s.declaration ? JSON.stringify(s.declaration) : null],
      );
    } else {
      await this.db.query(
        `UPDATE policy_set_versions SET status = 'errored', errored_at = now(), error = $2, error_message = $3,
                upload_session_id = NULL, updated_at = now()
          WHERE id = $1`,
        [id, s.error, s.errorMessage],
      );
    }
  }
}
