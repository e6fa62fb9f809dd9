import type { Queryable } from '@policyhub/db';
import type { PolicyFields } from '../domain/policy-rules.js';
import type { Kind } from '../domain/vocabulary.js';
import { escapeLike } from './escape-like.js';
import { inOrganization, type OrganizationRef } from './organization-scope.js';

export interface PolicyRow {
  id: string;
  organization: string;
  /** Null for rows recorded before organization ids existed. */
  organization_id: string | null;
  name: string;
  description: string | null;
  kind: Kind;
  query: string | null;
  enforcement_level: PolicyFields['enforcementLevel'];
  enforce_path: string | null;
  has_code: boolean;
  created_at: string;
  /** The last code upload; null before the first one. */
  code_uploaded_at: string | null;
  policy_set_ids: string[];
}

// The sets holding each policy come from the same statement (one subquery per row, no query per policy).
const COLUMNS = `p.id, p.organization, p.organization_id, p.name, p.description, p.kind, p.query, p.enforcement_level, p.enforce_path,
  p.code IS NOT NULL AS has_code, p.created_at, p.code_uploaded_at,
  ARRAY(SELECT r.policy_set_id FROM policy_set_policies r WHERE r.policy_id = p.id ORDER BY r.position) AS policy_set_ids`;

export const toPolicyFields = (r: PolicyRow): PolicyFields => ({
  name: r.name,
  description: r.description,
  kind: r.kind,
  query: r.query,
  enforcementLevel: r.enforcement_level,
  enforcePath: r.enforce_path,
});

export class PolicyRepository {
  constructor(private readonly db: Queryable) {}

  async get(id: string): Promise<PolicyRow | undefined> {
    const { rows } = await this.db.query<PolicyRow>(`SELECT ${COLUMNS} FROM policies p WHERE p.id = $1`, [
      id,
    ]);
    return rows[0];
  }

  async getMany(ids: readonly string[]): Promise<PolicyRow[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.db.query<PolicyRow>(
      `SELECT ${COLUMNS} FROM policies p WHERE p.id = ANY($1)`,
      [ids],
    );
    return rows;
  }

  /** Kinds of the given ids that exist in the organization (the rest are unknown there). */
  async kindsIn(organization: OrganizationRef, ids: readonly string[]): Promise<Map<string, Kind>> {
    if (ids.length === 0) return new Map();
    const { rows } = await this.db.query<{ id: string; kind: Kind }>(
      `SELECT id, kind FROM policies WHERE ${inOrganization('', 1, 3)} AND id = ANY($2)`,
      [organization.id, ids, organization.name],
    );
    return new Map(rows.map((r) => [r.id, r.kind]));
  }

  async insert(id: string, organization: OrganizationRef, f: PolicyFields): Promise<void> {
    await this.db.query(
      `INSERT INTO policies (id, organization, organization_id, name, description, kind, query, enforcement_level,
                             enforce_path)
       VALUES ($1, $2, $9, $3, $4, $5, $6, $7, $8)`,
      [
        id,
        organization.name,
        f.name,
        f.description,
        f.kind,
        f.query,
        f.enforcementLevel,
        f.enforcePath,
        organization.id,
      ],
    );
  }

  async update(id: string, f: PolicyFields): Promise<void> {
    await this.db.query(
      `UPDATE policies SET name = $2, description = $3, query = $4, enforcement_level = $5, enforce_path = $6,
              updated_at = now() WHERE id = $1`,
      [id, f.name, f.description, f.query, f.enforcementLevel, f.enforcePath],
    );
  }

  async list(
    organization: OrganizationRef,
    filter: { search: string; kind: Kind | undefined },
    limit: number,
    offset: number,
  ) {
    const { rows } = await this.db.query<PolicyRow & { total: number }>(
      `SELECT ${COLUMNS}, page.total FROM (
         SELECT id, count(*) OVER () AS total FROM policies
          WHERE ${inOrganization('', 1, 6)} AND ($2 = '' OR name ILIKE '%' || $2 || '%') AND ($3::text IS NULL OR kind = $3)
          ORDER BY created_at, id LIMIT $4 OFFSET $5
       ) page JOIN policies p ON p.id = page.id
       ORDER BY p.created_at, p.id`,
      [organization.id, escapeLike(filter.search), filter.kind ?? null, limit, offset, organization.name],
    );
    if (rows.length > 0) return { rows, total: rows[0]!.total };
    const { rows: count } = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM policies
        WHERE ${inOrganization('', 1, 4)} AND ($2 = '' OR name ILIKE '%' || $2 || '%') AND ($3::text IS NULL OR kind = $3)`,
      [organization.id, escapeLike(filter.search), filter.kind ?? null, organization.name],
    );
    return { rows, total: count[0]?.n ?? 0 };
  }

  async delete(id: string): Promise<boolean> {
    const { rowCount } = await this.db.query('DELETE FROM policies WHERE id = $1', [id]);
    return (rowCount ?? 0) > 0;
  }

  async setCode(id: string, code: Buffer): Promise<void> {
    await this.db.query(
      'UPDATE policies SET code = $2, updated_at = now(), code_uploaded_at = now() WHERE id = $1',
      [id, code],
    );
  }

  /** The uploaded code; undefined for a missing policy or one without code. */
  async getCode(id: string): Promise<Buffer | undefined> {
    const { rows } = await this.db.query<{ code: Buffer | null }>('SELECT code FROM policies WHERE id = $1', [
      id,
    ]);
    return rows[0]?.code ?? undefined;
  }

  /** Policies of a deleted organization: those recorded with its id (and unkeyed ones of its name). */
  async deleteOrganization(organization: OrganizationRef): Promise<void> {
    await this.db.query(`DELETE FROM policies WHERE ${inOrganization('', 1, 2)}`, [
      organization.id,
      organization.name,
    ]);
  }
}
