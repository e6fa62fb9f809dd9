import type { Queryable } from '@policyhub/db';
import type { ManifestEntry } from '../domain/upload-outcomes.js';

export interface ObjectRecord {
  key: string;
  organization: string;
  /**
   * The owning organization's immutable id ('' when the writer named none: then only the writer
   * deletes the object, never an organization's deletion).
   */
  organizationId?: string;
  sizeBytes: number;
  sha256: string;
  contentType: string;
  manifest?: ManifestEntry[] | undefined;
}

/** LIKE pattern matching every key that starts with `prefix` (LIKE's wildcards escaped). */
const startsWith = (prefix: string): string => `${prefix.replace(/[\\%_]/g, '\\$&')}%`;

export class ObjectRepository {
  constructor(private readonly db: Queryable) {}

  async upsert(o: ObjectRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO objects (key, organization, size_bytes, sha256, content_type, manifest, organization_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (key) DO UPDATE SET size_bytes = EXCLUDED.size_bytes, sha256 = EXCLUDED.sha256,
         content_type = EXCLUDED.content_type, manifest = EXCLUDED.manifest, updated_at = now()`,
      [
        o.key,
        o.organization,
        o.sizeBytes,
        o.sha256,
        o.contentType,
        o.manifest ? JSON.stringify(o.manifest) : null,
        o.organizationId ?? '',
      ],
    );
  }

  /** Size and SHA-256 of the objects that exist among `keys`. */
  async stat(keys: string[]): Promise<Array<{ key: string; sizeBytes: number; sha256: string }>> {
    if (keys.length === 0) return [];
    const { rows } = await this.db.query<{ key: string; size_bytes: string; sha256: string }>(
      'SELECT key, size_bytes, sha256 FROM objects WHERE key = ANY($1) ORDER BY key',
      [keys],
    );
    return rows.map((r) => ({ key: r.key, sizeBytes: Number(r.size_bytes), sha256: r.sha256 }));
  }

  /**
   * Keys of a deleted organization's archives: recorded with its id, or from before ids existed
   * with its name. Objects of a new organization that took the name are not among them.
   */
  async keysOfOrganization(organization: { name: string; id: string | null }): Promise<string[]> {
    const { rows } = await this.db.query<{ key: string }>(
      `SELECT key FROM objects WHERE organization_id = $1 OR (organization_id IS NULL AND organization = $2)`,
      [organization.id, organization.name],
    );
    return rows.map((r) => r.key);
  }

  async deleteKeys(keys: string[]): Promise<void> {
    if (keys.length > 0) await this.db.query('DELETE FROM objects WHERE key = ANY($1)', [keys]);
  }

  async deletePrefix(prefix: string): Promise<void> {
    await this.db.query(`DELETE FROM objects WHERE key LIKE $1 ESCAPE '\\'`, [startsWith(prefix)]);
  }
}
