import type { Queryable } from '@policyhub/db';
import { inOrganization, type OrganizationRef } from './organization-scope.js';

/** A parameter row: `value` for a plain one, `sealed_value` for a sensitive one (never both). */
export interface ParameterRow {
  id: string;
  policy_set_id: string;
  key: string;
  value: string | null;
  sealed_value: string | null;
  sensitive: boolean;
  category: string;
}

/** What is stored: the plain value, or the sealed one of a sensitive parameter. */
export interface StoredParameter {
  key: string;
  value: string | null;
  sealedValue: string | null;
  sensitive: boolean;
}

const COLUMNS = 'id, policy_set_id, key, value, sealed_value, sensitive, category';

export class PolicySetParameterRepository {
  constructor(private readonly db: Queryable) {}

  async get(policySetId: string, id: string): Promise<ParameterRow | undefined> {
    const { rows } = await this.db.query<ParameterRow>(
      `SELECT ${COLUMNS} FROM policy_set_parameters WHERE id = $1 AND policy_set_id = $2`,
      [id, policySetId],
    );
    return rows[0];
  }

  async list(policySetId: string, limit: number, offset: number) {
    const { rows } = await this.db.query<ParameterRow & { total: number }>(
      `SELECT ${COLUMNS}, count(*) OVER ()::int AS total FROM policy_set_parameters
        WHERE policy_set_id = $1 ORDER BY position LIMIT $2 OFFSET $3`,
      [policySetId, limit, offset],
    );
    if (rows.length > 0 || offset === 0) return { rows, total: rows[0]?.total ?? 0 };
    const { rows: count } = await this.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM policy_set_parameters WHERE policy_set_id = $1',
      [policySetId],
    );
    return { rows, total: count[0]?.n ?? 0 };
  }

  async insert(id: string, policySetId: string, p: StoredParameter): Promise<void> {
    await this.db.query(
      `INSERT INTO policy_set_parameters (id, policy_set_id, key, value, sealed_value, sensitive)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [id, policySetId, p.key, p.value, p.sealedValue, p.sensitive],
    );
  }

  async update(id: string, p: StoredParameter): Promise<void> {
    await this.db.query(
      `UPDATE policy_set_parameters SET key = $2, value = $3, sealed_value = $4, sensitive = $5 WHERE id = $1`,
      [id, p.key, p.value, p.sealedValue, p.sensitive],
    );
  }

  async delete(policySetId: string, id: string): Promise<boolean> {
    const { rowCount } = await this.db.query(
      'DELETE FROM policy_set_parameters WHERE id = $1 AND policy_set_id = $2',
      [id, policySetId],
    );
    return (rowCount ?? 0) > 0;
  }

  /**
   * The parameters of the given sets of one organization, in creation order (sets of another
   * organization, and unknown ids, have none here).
   */
  async ofSets(
    organization: OrganizationRef,
    policySetIds: readonly string[],
  ): Promise<
    Array<Pick<ParameterRow, 'id' | 'policy_set_id' | 'key' | 'value' | 'sealed_value' | 'sensitive'>>
  > {
    if (policySetIds.length === 0) return [];
    const { rows } = await this.db.query<ParameterRow>(
      `SELECT a.id, a.policy_set_id, a.key, a.value, a.sealed_value, a.sensitive
         FROM policy_set_parameters a JOIN policy_sets ps ON ps.id = a.policy_set_id
        WHERE a.policy_set_id = ANY($3) AND ${inOrganization('ps', 1, 2)}
        ORDER BY a.policy_set_id, a.position`,
      [organization.id, organization.name, policySetIds],
    );
    return rows;
  }

  /** Values not sealed with `currentKeyId`, by id after `afterId` (keyset pages). */
  async sealedWithOtherKey(
    currentKeyId: string,
    afterId: string,
    limit: number,
  ): Promise<Array<{ id: string; sealed_value: string }>> {
    const { rows } = await this.db.query<{ id: string; sealed_value: string }>(
      `SELECT id, sealed_value FROM policy_set_parameters
        WHERE sealed_value IS NOT NULL AND id > $2 AND NOT starts_with(sealed_value, $1) ORDER BY id LIMIT $3`,
      [`${currentKeyId}:`, afterId, limit],
    );
    return rows;
  }

  /** Replaces a sealed value only if it is still the one read (a concurrent write wins). */
  async reseal(id: string, from: string, to: string): Promise<void> {
    await this.db.query(
      'UPDATE policy_set_parameters SET sealed_value = $3 WHERE id = $1 AND sealed_value = $2',
      [id, from, to],
    );
  }
}
