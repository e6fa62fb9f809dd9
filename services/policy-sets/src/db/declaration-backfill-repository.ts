import type { Queryable } from '@policyhub/db';
import type { VersionDeclaration } from '../domain/versions.js';
import type { Kind } from '../domain/vocabulary.js';

/** A ready version without a recorded declaration, with what its archive's layout depends on. */
export interface UndeclaredVersionRow {
  id: string;
  object_key: string;
  kind: Kind;
  policies_path: string | null;
}

/** Ready versions that became ready before declarations were recorded (docs/adr/0057). */
export class DeclarationBackfillRepository {
  constructor(private readonly db: Queryable) {}

  /** Up to `limit` of them, sets' current versions first, leaving out `skip` (ids). */
  async withoutDeclaration(skip: readonly string[], limit: number): Promise<UndeclaredVersionRow[]> {
    const { rows } = await this.db.query<UndeclaredVersionRow>(
      `SELECT v.id, v.object_key, ps.kind, ps.policies_path
         FROM policy_set_versions v JOIN policy_sets ps ON ps.id = v.policy_set_id
        WHERE v.status = 'ready' AND v.declaration IS NULL AND v.object_key IS NOT NULL
          AND NOT (v.id = ANY($1::text[]))
        ORDER BY (ps.current_version_id IS NOT DISTINCT FROM v.id) DESC, v.ready_at DESC, v.id
        LIMIT $2`,
      [skip, limit],
    );
    return rows;
  }

  /** Records the declaration unless the version has one already (or is gone); true when it did. */
  async record(id: string, declaration: VersionDeclaration): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `UPDATE policy_set_versions SET declaration = $2
        WHERE id = $1 AND status = 'ready' AND declaration IS NULL`,
      [id, JSON.stringify(declaration)],
    );
    return (rowCount ?? 0) > 0;
  }
}
