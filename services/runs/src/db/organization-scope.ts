/** A deleted organization as its deletion event names it: the name and, since ADR 0019, its id. */
export interface OrganizationRef {
  name: string;
  /** Null for events written before organization ids existed. */
  id: string | null;
}

/**
 * SQL over a table with `organization` and `organization_id`: rows recorded with the id `$1`, and
 * rows from before ids existed (no id) with the name `$2`.
 */
export const IN_ORGANIZATION = '(organization_id = $1 OR (organization_id IS NULL AND organization = $2))';
