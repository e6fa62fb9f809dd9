import type { Queryable } from '@policyhub/db';
import { IN_ORGANIZATION, type OrganizationRef } from './organization-scope.js';
import { pageWithTotal } from './paging.js';

export interface ConfigurationVersionRow {
  id: string;
  organization: string;
  /** The organization's immutable id; null for versions recorded before ids existed. */
  organization_id: string | null;
  workspace_id: string;
  status: string;
  status_timestamps: Record<string, string>;
  source: string;
  auto_queue_runs: boolean;
  speculative: boolean;
  provisional: boolean;
  error: string | null;
  error_message: string | null;
  /** Storage's upload session of a pending version (no secret: the URL is minted from it, ADR 0059). */
  upload_session_id: string | null;
  upload_expires_at: string;
  object_key: string | null;
  size_bytes: string | null;
  sha256: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export type CvSettlement =
  | { status: 'uploaded'; objectKey: string; sizeBytes: number; sha256: string }
  | { status: 'errored'; error: string; errorMessage: string };

export class ConfigurationVersionRepository {
  constructor(private readonly db: Queryable) {}

  async insert(v: {
    id: string;
    organization: string;
    organizationId: string;
    workspaceId: string;
    autoQueueRuns: boolean;
    speculative: boolean;
    provisional: boolean;
    statusTimestamps: Record<string, string>;
    uploadSessionId: string;
    uploadExpiresAt: string;
    createdBy: string;
    createdAt: string;
  }): Promise<ConfigurationVersionRow> {
    const { rows } = await this.db.query<ConfigurationVersionRow>(
      `INSERT INTO configuration_versions
         (id, organization, workspace_id, status, status_timestamps, auto_queue_runs, speculative, provisional,
          upload_session_id, upload_expires_at, created_by, created_at, updated_at, organization_id)
       VALUES ($1, $2, $3, 'pending', $4, $5, $6, $7, $8, $9, $10, $11, $11, $12)
       RETURNING *`,
      [
        v.id,
        v.organization,
        v.workspaceId,
        JSON.stringify(v.statusTimestamps),
        v.autoQueueRuns,
        v.speculative,
        v.provisional,
        v.uploadSessionId,
        v.uploadExpiresAt,
        v.createdBy,
        v.createdAt,
        v.organizationId || null,
      ],
    );
    return rows[0]!;
  }

  async get(id: string, options: { forUpdate?: boolean } = {}): Promise<ConfigurationVersionRow | undefined> {
    const { rows } = await this.db.query<ConfigurationVersionRow>(
      `SELECT * FROM configuration_versions WHERE id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0];
  }

  /** Newest first. */
  listByWorkspace(workspaceId: string, limit: number, offset: number) {
    return pageWithTotal<ConfigurationVersionRow>(
      this.db,
      `SELECT *, count(*) OVER () AS total FROM configuration_versions WHERE workspace_id = $1
        ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
      [workspaceId, limit, offset],
      'SELECT count(*)::int AS n FROM configuration_versions WHERE workspace_id = $1',
      [workspaceId],
    );
  }

  /** Moves a pending version to uploaded or errored; the upload URL is forgotten either way. */
  async settle(
    id: string,
    settlement: CvSettlement,
    statusTimestamps: Record<string, string>,
  ): Promise<void> {
    if (settlement.status === 'uploaded') {
      await this.db.query(
        `UPDATE configuration_versions SET status = 'uploaded', status_timestamps = $2, object_key = $3,
                size_bytes = $4, sha256 = $5, upload_session_id = NULL, updated_at = now()
          WHERE id = $1`,
        [id, JSON.stringify(statusTimestamps), settlement.objectKey, settlement.sizeBytes, settlement.sha256],
      );
      return;
    }
    await this.db.query(
      `UPDATE configuration_versions SET status = 'errored', status_timestamps = $2, error = $3, error_message = $4,
              upload_session_id = NULL, updated_at = now()
        WHERE id = $1`,
      [id, JSON.stringify(statusTimestamps), settlement.error, settlement.errorMessage],
    );
  }

  async deleteInWorkspace(workspaceId: string): Promise<number> {
    const { rowCount } = await this.db.query('DELETE FROM configuration_versions WHERE workspace_id = $1', [
      workspaceId,
    ]);
    return rowCount ?? 0;
  }

  /** Versions recorded with the deleted organization's id (or, from before ids, with its name). */
  async deleteInOrganization(organization: OrganizationRef): Promise<number> {
    const { rowCount } = await this.db.query(`DELETE FROM configuration_versions WHERE ${IN_ORGANIZATION}`, [
      organization.id,
      organization.name,
    ]);
    return rowCount ?? 0;
  }
}
