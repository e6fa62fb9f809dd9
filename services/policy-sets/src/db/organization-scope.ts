/**
 * An organization as policy-sets keys its data: the name (kept for the wire) and the immutable id
 * admin-orgs gave it. A re-created organization of the same name has another id (ADR 0019).
 */
export interface OrganizationRef {
  name: string;
  /** Null only for rows recorded before organization ids existed. */
  id: string | null;
}

/** The organization a stored row belongs to. */
export const organizationOfRow = (row: {
  organization: string;
  organization_id: string | null;
}): OrganizationRef => ({
  name: row.organization,
  id: row.organization_id,
});

/**
 * SQL: the row belongs to the organization with id `$idParam`; rows recorded before ids existed
 * (no id) belong to whoever holds the name `$nameParam`.
 */
export const inOrganization = (alias: string, idParam: number, nameParam: number): string => {
  const c = alias ? `${alias}.` : '';
  return `(${c}organization_id = $${idParam} OR (${c}organization_id IS NULL AND ${c}organization = $${nameParam}))`;
};
