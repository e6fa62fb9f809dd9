import type { Queryable } from '@policyhub/db';
import type { OrganizationRef } from './organization-scope.js';

/** A claimable piece of work: a policy check or a policy evaluation (task stage). */
export interface ClaimableWork {
  kind: 'check' | 'evaluation';
  id: string;
  organization_key: string;
  attempts: number;
}

/*
 * Open work, as the partial indexes of migrations 0007 and 0009 cover it: checks wait `queued`
 * (leased or not), evaluations `queued` and then `running` (leased or not).
 */
const OPEN_CHECK = "status = 'queued'";
const OPEN_EVALUATION = "status IN ('queued', 'running')";
const LEASE_FREE = '(lease_expires_at IS NULL OR lease_expires_at < now())';

/**
 * The order in which organizations get their next piece of work claimed
 * (docs/adr/0052-fair-claims-across-organizations.md): those holding the fewest leases right
 * now first, then the one served longest ago (never served: first). One organization's backlog
 * thus waits behind every other organization's next check or evaluation, whatever their ages.
 * Checks and policy evaluations are one queue: leases of both count, and an organization's turn
 * serves its oldest claimable work of either kind.
 */
export class ClaimTurnRepository {
  constructor(private readonly db: Queryable) {}

  /**
   * Up to `limit` organization keys with open work, in claiming order; with `withEvaluations`
   * unset, only organizations with queued checks (an evaluator that takes no evaluations).
   */
  async organizationsInTurn(limit: number, withEvaluations: boolean): Promise<string[]> {
    // The recursive part probes the partial indexes of open work that start with organization_key
    // once per organization, not once per queued item: a large backlog costs what one
    // organization does. LEAST skips the NULL of a table with no further organization.
    const { rows } = await this.db.query<{ organization_key: string }>(
      `WITH RECURSIVE queued(key) AS (
         SELECT LEAST(
           (SELECT organization_key FROM policy_checks WHERE ${OPEN_CHECK} ORDER BY organization_key LIMIT 1),
           (SELECT organization_key FROM policy_evaluations WHERE $2::boolean AND ${OPEN_EVALUATION}
             ORDER BY organization_key LIMIT 1))
         UNION ALL
         SELECT LEAST(
           (SELECT c.organization_key FROM policy_checks c
             WHERE c.${OPEN_CHECK} AND c.organization_key > q.key ORDER BY c.organization_key LIMIT 1),
           (SELECT e.organization_key FROM policy_evaluations e
             WHERE $2::boolean AND e.${OPEN_EVALUATION} AND e.organization_key > q.key
             ORDER BY e.organization_key LIMIT 1))
           FROM queued q WHERE q.key IS NOT NULL)
       SELECT q.key AS organization_key
         FROM queued q LEFT JOIN claim_turns t ON t.organization_key = q.key
        WHERE q.key IS NOT NULL
        ORDER BY (SELECT count(*) FROM policy_checks l
                   WHERE l.${OPEN_CHECK} AND l.organization_key = q.key AND l.lease_expires_at >= now())
               + (SELECT count(*) FROM policy_evaluations l
                   WHERE l.${OPEN_EVALUATION} AND l.organization_key = q.key AND l.lease_expires_at >= now()),
                 t.last_claimed_at NULLS FIRST, q.key
        LIMIT $1`,
      [limit, withEvaluations],
    );
    return rows.map((r) => r.organization_key);
  }

  /**
   * Locks the oldest open check or evaluation (one queue, by creation) whose lease is free or
   * expired, of one organization when `organizationKey` is given, skipping ones other evaluators
   * are locking right now; or returns undefined. The other kind's oldest is locked too until the
   * claim's transaction ends (a concurrent claim takes the next one instead).
   */
  async nextClaimableForUpdate(
    organizationKey: string | undefined,
    withEvaluations: boolean,
  ): Promise<ClaimableWork | undefined> {
    const ofOrganization = organizationKey === undefined ? '' : 'AND organization_key = $2';
    const { rows } = await this.db.query<ClaimableWork>(
      `WITH c AS (
         SELECT 'check' AS kind, id, organization_key, attempts, created_at FROM policy_checks
          WHERE ${OPEN_CHECK} AND ${LEASE_FREE} ${ofOrganization}
          ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED),
       e AS (
         SELECT 'evaluation' AS kind, id, organization_key, attempts, created_at FROM policy_evaluations
          WHERE $1::boolean AND ${OPEN_EVALUATION} AND ${LEASE_FREE} ${ofOrganization}
          ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
       SELECT kind, id, organization_key, attempts FROM (SELECT * FROM c UNION ALL SELECT * FROM e) w
        ORDER BY created_at, id LIMIT 1`,
      organizationKey === undefined ? [withEvaluations] : [withEvaluations, organizationKey],
    );
    return rows[0];
  }

  /** The organization just had work claimed: it goes to the back of the rotation. */
  async taken(organizationKey: string): Promise<void> {
    await this.db.query(
      `INSERT INTO claim_turns (organization_key, last_claimed_at) VALUES ($1, clock_timestamp())
       ON CONFLICT (organization_key) DO UPDATE SET last_claimed_at = EXCLUDED.last_claimed_at`,
      [organizationKey],
    );
  }

  /**
   * A deleted organization's turn goes with it: its key is its id, or its name for runs from
   * before ids (the deletion takes those runs too: IN_ORGANIZATION in organization-scope.ts).
   */
  async forget(organization: OrganizationRef): Promise<void> {
    await this.db.query('DELETE FROM claim_turns WHERE organization_key = ANY($1::text[])', [
      organization.id === null ? [organization.name] : [organization.id, organization.name],
    ]);
  }
}
