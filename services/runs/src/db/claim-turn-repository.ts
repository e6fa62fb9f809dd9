import type { Queryable } from '@policyhub/db';

/**
 * The order in which organizations get their next check claimed
 * (docs/adr/0052-fair-claims-across-organizations.md): those holding the fewest leases right
 * now first, then the one served longest ago (never served: first). One organization's backlog
 * thus waits behind every other organization's next check, whatever their ages.
 */
export class ClaimTurnRepository {
  constructor(private readonly db: Queryable) {}

  /** Up to `limit` organization keys with queued checks, in claiming order. */
  async organizationsInTurn(limit: number): Promise<string[]> {
    // The recursive part probes a partial index of queued checks that starts with organization_key
    // (migration 0006) once per organization, not once per queued check: a large backlog costs
    // what one organization does.
    const { rows } = await this.db.query<{ organization_key: string }>(
      `WITH RECURSIVE queued(key) AS (
         (SELECT organization_key FROM policy_checks WHERE status = 'queued' ORDER BY organization_key LIMIT 1)
         UNION ALL
         SELECT (SELECT c.organization_key FROM policy_checks c
                  WHERE c.status = 'queued' AND c.organization_key > q.key
                  ORDER BY c.organization_key LIMIT 1)
           FROM queued q WHERE q.key IS NOT NULL)
       SELECT q.key AS organization_key
         FROM queued q LEFT JOIN claim_turns t ON t.organization_key = q.key
        WHERE q.key IS NOT NULL
        ORDER BY (SELECT count(*) FROM policy_checks l
                   WHERE l.status = 'queued' AND l.organization_key = q.key AND l.lease_expires_at >= now()),
                 t.last_claimed_at NULLS FIRST, q.key
        LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.organization_key);
  }

  /** The organization just had a check claimed: it goes to the back of the rotation. */
  async taken(organizationKey: string): Promise<void> {
    await this.db.query(
      `INSERT INTO claim_turns (organization_key, last_claimed_at) VALUES ($1, clock_timestamp())
       ON CONFLICT (organization_key) DO UPDATE SET last_claimed_at = EXCLUDED.last_claimed_at`,
      [organizationKey],
    );
  }
}
