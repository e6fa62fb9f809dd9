import type { Queryable } from '@policyhub/db';
import type { Registry, SharingState } from '../domain/registry-sharing.js';
import { escapeLike, ORG_COLUMNS, type OrganizationRow } from './tenancy-repository.js';

/** Search and filters of the admin organization list. */
export interface OrganizationSearch {
  /** Substring of name or email; when non-empty, name and email below are ignored. */
  query: string;
  name: string;
  email: string;
  moduleProducer?: boolean | undefined;
  providerProducer?: boolean | undefined;
}

/** Columns an admin may change; null means "back to the instance default" where allowed. */
export interface OrganizationSettings {
  accessBetaTools?: boolean;
  globalModuleSharing?: boolean;
  globalProviderSharing?: boolean;
  isDisabled?: boolean;
  workerSudoEnabled?: boolean;
  applyTimeout?: string | null;
  planTimeout?: string | null;
  workspaceLimit?: number | null;
}

const SETTING_COLUMNS: Record<keyof OrganizationSettings, string> = {
  accessBetaTools: 'access_beta_tools',
  globalModuleSharing: 'global_module_sharing',
  globalProviderSharing: 'global_provider_sharing',
  isDisabled: 'is_disabled',
  workerSudoEnabled: 'worker_sudo_enabled',
  applyTimeout: 'apply_timeout',
  planTimeout: 'plan_timeout',
  workspaceLimit: 'workspace_limit',
};

const GLOBAL_COLUMN: Record<Registry, string> = {
  modules: 'global_module_sharing',
  providers: 'global_provider_sharing',
};

/**
 * An organization "shares" a registry (is a producer) when it shares it globally or has at least
 * one configured consumer; `filter[module_producer]=false` returns every other organization.
 */
const isProducer = (registry: Registry) =>
  `(o.${GLOBAL_COLUMN[registry]} OR EXISTS (SELECT 1 FROM registry_consumers c
     WHERE c.producer = o.name AND c.registry = '${registry}'))`;

/**
 * WHERE clause of a search. Substring matches use ILIKE '%…%', which the trigram GIN indexes on
 * name and email serve (migration 0002), so search stays fast with many organizations.
 */
export function searchCondition(search: OrganizationSearch): { where: string; params: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const contains = (s: string) => `%${escapeLike(s)}%`;
  if (search.query !== '') {
    const p = param(contains(search.query));
    conditions.push(`(o.name ILIKE ${p} OR o.email ILIKE ${p})`);
  } else {
    if (search.name !== '') conditions.push(`o.name ILIKE ${param(contains(search.name))}`);
    if (search.email !== '') conditions.push(`o.email ILIKE ${param(contains(search.email))}`);
  }
  if (search.moduleProducer !== undefined)
    conditions.push(`${search.moduleProducer ? '' : 'NOT '}${isProducer('modules')}`);
  if (search.providerProducer !== undefined) {
    conditions.push(`${search.providerProducer ? '' : 'NOT '}${isProducer('providers')}`);
  }
  return { where: conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '', params };
}

/**
 * Planner settings for one substring search transaction. Postgres underestimates how selective a
 * trigram match is and picks a sequential scan (or a walk of the created_at index) that applies
 * ILIKE to every organization: 20–30 ms at 20,000 rows, growing linearly. Bitmap scans over the
 * trigram GIN indexes stay a few milliseconds (measured with bench/, see bench/RESULTS.md).
 */
export const TRIGRAM_SEARCH_PLAN = 'SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = off';

export class AdminOrganizationRepository {
  constructor(private readonly db: Queryable) {}

  /** One page of matching organizations, oldest first. */
  async search(search: OrganizationSearch, limit: number, offset: number): Promise<OrganizationRow[]> {
    const { where, params } = searchCondition(search);
    const n = params.length;
    const { rows } = await this.db.query<OrganizationRow>(
      `SELECT ${ORG_COLUMNS} FROM organizations o ${where}
        ORDER BY o.created_at, o.name LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, limit, offset],
    );
    return rows;
  }

  /**
   * A substring search in one statement and one scan: the matches are collected once (bitmap
   * scans over the trigram indexes, see TRIGRAM_SEARCH_PLAN) and both the page and the counts come
   * from them. The counts row is always returned (the page is LEFT JOINed to it), so an empty page
   * (a term that matches nothing, or a page past the end) needs no second query.
   */
  async searchWithCounts(
    search: OrganizationSearch,
    limit: number,
    offset: number,
  ): Promise<{ rows: OrganizationRow[]; total: number; disabled: number }> {
    const { where, params } = searchCondition(search);
    const n = params.length;
    const { rows } = await this.db.query<
      OrganizationRow & { match_total: number; match_disabled: number; page_name: string | null }
    >(
      `WITH matches AS MATERIALIZED (SELECT o.name, o.created_at, o.is_disabled FROM organizations o ${where}),
            page AS (SELECT name FROM matches ORDER BY created_at, name LIMIT $${n + 1} OFFSET $${n + 2}),
            counts AS (SELECT count(*)::int AS match_total,
                              count(*) FILTER (WHERE is_disabled)::int AS match_disabled FROM matches)
       SELECT counts.match_total, counts.match_disabled, page.name AS page_name, o_page.*
         FROM counts
         LEFT JOIN page ON true
         LEFT JOIN LATERAL (SELECT ${ORG_COLUMNS} FROM organizations o WHERE o.name = page.name) o_page ON true
        ORDER BY o_page.created_at, o_page.name`,
      [...params, limit, offset],
    );
    const first = rows[0];
    return {
      rows: rows
        .filter((r) => r.page_name !== null)
        .map(({ match_total: _t, match_disabled: _d, page_name: _p, ...row }) => row as OrganizationRow),
      total: first?.match_total ?? 0,
      disabled: first?.match_disabled ?? 0,
    };
  }

  /** How many organizations match, and how many of them are disabled. */
  async countMatching(search: OrganizationSearch): Promise<{ total: number; disabled: number }> {
    const { where, params } = searchCondition(search);
    const { rows } = await this.db.query<{ total: number; disabled: number }>(
      `SELECT count(*)::int AS total, count(*) FILTER (WHERE o.is_disabled)::int AS disabled
         FROM organizations o ${where}`,
      params,
    );
    return rows[0] ?? { total: 0, disabled: 0 };
  }

  /**
   * Locks the organization's row for the rest of the transaction (serialises its settings and
   * sharing changes). NO KEY UPDATE, so it does not block consumer rows that reference it: two
   * organizations naming each other as consumers at the same moment must not deadlock.
   */
  async lockOrganization(name: string): Promise<boolean> {
    const { rows } = await this.db.query('SELECT 1 FROM organizations WHERE name = $1 FOR NO KEY UPDATE', [
      name,
    ]);
    return rows.length > 0;
  }

  async updateSettings(name: string, settings: OrganizationSettings): Promise<void> {
    const assignments: string[] = [];
    const params: unknown[] = [name];
    for (const [key, column] of Object.entries(SETTING_COLUMNS) as Array<
      [keyof OrganizationSettings, string]
    >) {
      if (settings[key] === undefined) continue;
      params.push(settings[key]);
      assignments.push(`${column} = $${params.length}`);
    }
    if (assignments.length === 0) return;
    await this.db.query(
      `UPDATE organizations SET ${assignments.join(', ')}, updated_at = now() WHERE name = $1`,
      params,
    );
  }

  /** Sharing settings of several organizations in one query (missing names are left out). */
  async sharingStates(names: string[]): Promise<SharingState[]> {
    if (names.length === 0) return [];
    const { rows } = await this.db.query<{
      name: string;
      global_module_sharing: boolean;
      global_provider_sharing: boolean;
      module_consumers: string[];
      provider_consumers: string[];
    }>(
      `SELECT o.name, o.global_module_sharing, o.global_provider_sharing,
              coalesce(array_agg(c.consumer ORDER BY c.consumer) FILTER (WHERE c.registry = 'modules'), '{}') AS module_consumers,
              coalesce(array_agg(c.consumer ORDER BY c.consumer) FILTER (WHERE c.registry = 'providers'), '{}') AS provider_consumers
         FROM organizations o LEFT JOIN registry_consumers c ON c.producer = o.name
        WHERE o.name = ANY($1)
        GROUP BY o.name
        ORDER BY o.name`,
      [names],
    );
    return rows.map((r) => ({
      organization: r.name,
      globalModuleSharing: r.global_module_sharing,
      globalProviderSharing: r.global_provider_sharing,
      moduleConsumers: r.module_consumers,
      providerConsumers: r.provider_consumers,
    }));
  }

  /**
   * Producers that list `consumer` in either registry, for an organization about to be deleted.
   * Locks the consumer's row first, so consumer lists being written concurrently are committed
   * (and seen here) before the delete, or fail on the foreign key after it.
   */
  async producersOfDeleted(consumer: string): Promise<string[]> {
    await this.db.query('SELECT 1 FROM organizations WHERE name = $1 FOR UPDATE', [consumer]);
    const { rows } = await this.db.query<{ producer: string }>(
      'SELECT DISTINCT producer FROM registry_consumers WHERE consumer = $1 ORDER BY producer',
      [consumer],
    );
    return rows.map((r) => r.producer);
  }

  async replaceConsumers(producer: string, registry: Registry, consumers: string[]): Promise<void> {
    await this.db.query('DELETE FROM registry_consumers WHERE producer = $1 AND registry = $2', [
      producer,
      registry,
    ]);
    if (consumers.length === 0) return;
    await this.db.query(
      `INSERT INTO registry_consumers (producer, registry, consumer) SELECT $1, $2, unnest($3::text[])`,
      [producer, registry, consumers],
    );
  }

  /** One page of a producer's consumers (full organizations), oldest first, with the total. */
  async listConsumers(
    producer: string,
    registry: Registry,
    limit: number,
    offset: number,
  ): Promise<{ rows: OrganizationRow[]; total: number }> {
    const { rows } = await this.db.query<OrganizationRow & { total: number }>(
      `SELECT ${ORG_COLUMNS}, count(*) OVER () AS total
         FROM registry_consumers c JOIN organizations o ON o.name = c.consumer
        WHERE c.producer = $1 AND c.registry = $2
        ORDER BY o.created_at, o.name LIMIT $3 OFFSET $4`,
      [producer, registry, limit, offset],
    );
    if (rows.length > 0 || offset === 0) return { rows, total: rows[0]?.total ?? 0 };
    const count = await this.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM registry_consumers WHERE producer = $1 AND registry = $2',
      [producer, registry],
    );
    return { rows, total: count.rows[0]?.n ?? 0 };
  }

  /** The subset of `names` that are existing organizations. */
  async existingNames(names: string[]): Promise<Set<string>> {
    if (names.length === 0) return new Set();
    const { rows } = await this.db.query<{ name: string }>(
      'SELECT name FROM organizations WHERE name = ANY($1)',
      [names],
    );
    return new Set(rows.map((r) => r.name));
  }
}
